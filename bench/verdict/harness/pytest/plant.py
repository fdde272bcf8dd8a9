"""The planted slowdown in percent: 0 in the tree; the verdict lab writes
its candidate's (bench/verdict_lab.sh --harness)."""
PLANT_PCT = 0
