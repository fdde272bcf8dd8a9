# benchsite run --google-benchmark on two real Google Benchmark programs
# (examples/gbench: head's BM_sum has a planted slowdown, BM_hash and
# BM_count are the same code): the log passes `benchsite check`, the
# manifest records the harness, and `benchsite compare` flags BM_sum [4096]
# as the one significant regression.
# cmake -DBIN=benchsite -DBASE=base/gbench -DHEAD=head/gbench -DOUT=dir -P ...
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})

function(run_ok)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "exit ${rc}: ${ARGN}\n${out}${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

# The verdicts are statistics measured on a machine that may be busy: a
# load spike during one job can flag unchanged code (or hide the planted
# slowdown) by chance. A wrong pairing or parse fails every try; chance
# fails all three only with its probability cubed.
set(passed 0)
foreach(try RANGE 1 3)
  file(REMOVE_RECURSE ${OUT})
  file(MAKE_DIRECTORY ${OUT})
  # Quick batches: the test is about the plumbing, the slowdown is large.
  set(flags "--benchmark_min_time=0.01")
  run_ok(${BIN} run --out ${OUT}/log.csv --manifest-out ${OUT}/env.csv
         --blocks 12 --profile release --dtype u64
         --google-benchmark "base=${BASE} ${flags}"
         --google-benchmark "head=${HEAD} ${flags}")
  file(READ ${OUT}/env.csv env)
  foreach(want "\"harness\",\"google-benchmark\"" "\"baseline\",\"base\""
          "\"candidate\",\"head\"")
    string(FIND "${env}" "${want}" at)
    if(at LESS 0)
      message(FATAL_ERROR "manifest lacks ${want}:\n${env}")
    endif()
  endforeach()
  file(READ ${OUT}/log.csv log)
  foreach(want "\"BM_sum\",\"4096\",,\"base\",0,0,confirm,"
          "\"BM_hash\",\"1024\",,\"head\",0,11,confirm,")
    string(FIND "${log}" "${want}" at)
    if(at LESS 0)
      message(FATAL_ERROR "log lacks ${want}:\n${log}")
    endif()
  endforeach()
  string(FIND "${log}" "calibration" at)
  if(NOT at LESS 0)
    message(FATAL_ERROR "Google Benchmark mode wrote calibration rows")
  endif()
  run_ok(${BIN} check ${OUT}/log.csv --manifest ${OUT}/env.csv)

  execute_process(COMMAND ${BIN} compare ${OUT}/log.csv --manifest ${OUT}/env.csv
                          --json ${OUT}/compare.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(STATUS "try ${try}: compare found no regression\n${out}")
    set(flagged "")
    continue()
  elseif(NOT rc EQUAL 1)
    message(FATAL_ERROR "compare: exit ${rc}, want 1\n${out}${err}")
  endif()
  file(READ ${OUT}/compare.json json)
  string(JSON n LENGTH "${json}" cases)
  if(NOT n EQUAL 3)
    message(FATAL_ERROR "compare: ${n} cases, want 3\n${json}")
  endif()
  set(flagged "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON b GET "${json}" cases ${i} benchmark)
    string(JSON d GET "${json}" cases ${i} dataset)
    string(JSON sig GET "${json}" cases ${i} significant_regression)
    if(sig)
      list(APPEND flagged "${b}/${d}")
    endif()
  endforeach()
  if(flagged STREQUAL "BM_sum/4096")
    message(STATUS "compare flagged exactly BM_sum/4096 (try ${try}):\n${out}")
    set(passed 1)
    break()
  endif()
  message(STATUS "try ${try}: compare flagged [${flagged}], want [BM_sum/4096]\n${out}")
endforeach()
if(NOT passed)
  message(FATAL_ERROR "compare flagged [${flagged}] in each of 3 tries, want [BM_sum/4096]")
endif()
