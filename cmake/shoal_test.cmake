# Helpers that register multi-PE tests with ctest.
#
# shoal_add_pe_test(NAME name SOURCES a.c [b.c] [NPES 1 2 4 8] [TIMEOUT s] [ENV VAR=value...])
#   builds one executable against libshoal and registers one ctest test per PE
#   count, named name.npN, run as `shoalrun -n N --timeout T ./name`.
# 4 PEs already outnumber the 2 cores of the test machines; 8 found nothing 4 did not.
set(SHOAL_TEST_NPES 1 2 4 CACHE STRING "Default PE counts for multi-PE tests")

function(shoal_add_pe_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;NPES;ENV;ARGS" ${ARGN})
  if(NOT T_NPES)
    set(T_NPES ${SHOAL_TEST_NPES})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE shoal)
  target_compile_options(${T_NAME} PRIVATE ${SHOAL_WARNINGS})
  foreach(n IN LISTS T_NPES)
    add_test(NAME ${T_NAME}.np${n}
      COMMAND $<TARGET_FILE:shoalrun> -n ${n} --timeout ${T_TIMEOUT} $<TARGET_FILE:${T_NAME}> ${T_ARGS})
    # ctest waits 15 s longer than shoalrun: a hung job ends at shoalrun's
    # timeout, with every PE's hang report, not killed by ctest without one.
    math(EXPR ctest_timeout "${T_TIMEOUT} + 15")
    set_tests_properties(${T_NAME}.np${n} PROPERTIES TIMEOUT ${ctest_timeout} LABELS "api;np${n}")
    if(T_ENV)
      set_tests_properties(${T_NAME}.np${n} PROPERTIES ENVIRONMENT "${T_ENV}")
    endif()
  endforeach()
endfunction()
