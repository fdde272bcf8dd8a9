# Runs compare and tune on the examples and parses the JSON back with
# Python's json module (an independent parser). Fails on any error.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${BIN} compare ${SRC}/examples/pr.csv --manifest ${SRC}/examples/env.csv
          --json ${OUT}/compare.json --markdown ${OUT}/compare.md
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "compare on examples/pr.csv exited ${rc}, expected 1 (the example holds a significant regression)")
endif()
execute_process(COMMAND ${BIN} tune ${SRC}/examples/tune.csv --json ${OUT}/tune.json
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tune exited ${rc}")
endif()
foreach(f compare.json tune.json)
  execute_process(COMMAND ${PY} -c
    "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema'].startswith('benchsite.'), d['schema']; print(sys.argv[1], 'ok', len(json.dumps(d)))"
    ${OUT}/${f} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${f} is not valid JSON")
  endif()
endforeach()
