# An installed benchsite uses its installed templates, wherever the install
# is (even moved), and the build tree's benchsite the source tree's.
# Installs BUILD into OUT/prefix, marks the installed page head, and checks
# which templates each binary's report used. Needs gnuplot (the report's
# charts).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${OUT}/prefix
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install exited ${rc}")
endif()
set(head ${OUT}/prefix/share/benchsite/templates/_head.html)
file(READ ${head} text)
string(REPLACE "</head>" "<meta name=\"installed-templates\" content=\"yes\">\n</head>" marked "${text}")
if(marked STREQUAL text)
  message(FATAL_ERROR "${head} has no </head> to mark")
endif()
file(WRITE ${head} "${marked}")
# The moved copy is the same install under another prefix.
file(COPY ${OUT}/prefix/ DESTINATION ${OUT}/moved)

function(report bin dir want)
  execute_process(COMMAND ${bin} report ${SRC}/examples/pr.csv
                          --manifest ${SRC}/examples/env.csv --out ${OUT}/report-${dir}
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${bin} report exited ${rc}")
  endif()
  file(READ ${OUT}/report-${dir}/index.html page)
  string(FIND "${page}" "installed-templates" at)
  if(want AND at EQUAL -1)
    message(FATAL_ERROR "${bin} did not use its installed templates")
  elseif(NOT want AND NOT at EQUAL -1)
    message(FATAL_ERROR "${bin} (build tree) used installed templates, not the source tree's")
  endif()
endfunction()

report(${OUT}/prefix/bin/benchsite installed 1)
report(${OUT}/moved/bin/benchsite moved 1)
report(${BIN} build 0)
message(STATUS "installed, moved and build-tree benchsite each used their own templates")
