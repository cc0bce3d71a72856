# Fails when a source under DIR includes a project header from a directory of lib/ outside
# ALLOWED (a regex alternation such as "core|formats|quant"): the layers look only down, and this
# keeps them so. System headers (<...>) are not checked.
#   cmake -DDIR=<lib/some_layer> -DALLOWED=<a|b|c> -P CheckIncludes.cmake
if(NOT DIR OR NOT ALLOWED)
  message(FATAL_ERROR "usage: cmake -DDIR=<dir> -DALLOWED=<a|b|c> -P CheckIncludes.cmake")
endif()
file(GLOB_RECURSE sources "${DIR}/*.hpp" "${DIR}/*.cpp")
if(NOT sources)
  message(FATAL_ERROR "no sources under ${DIR}")
endif()
set(offending "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "\"(${ALLOWED})/[^\"]+\"")
      string(APPEND offending "\n  ${source}: ${line}")
    endif()
  endforeach()
endforeach()
if(offending)
  message(FATAL_ERROR "${DIR} may include only from ${ALLOWED}:${offending}")
endif()
