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

# CPU slots. Most tests keep the cores busy; a few mostly wait (a timeout
# that is the point of the test, a sleep, a network timeout). scripts/test.sh
# runs ctest with more jobs than cores and a resource spec
# (build/tests/cpu_slots.json: a `cpus` resource with a slot per core, and a
# `waits` resource with two per core): every test takes a CPU slot unless
# shoal_waits() names it, and then it takes a waits slot. So as many busy
# tests run at once as with `ctest -j <cores>`, up to twice as many waiting
# ones run beside them instead of holding a core idle, and neither kind can
# crowd out the other whatever order ctest starts them in. Plain `ctest -j N`
# (no spec file) ignores the slots and runs as before.
cmake_host_system_information(RESULT SHOAL_CPU_SLOTS QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR SHOAL_WAIT_SLOTS "2 * ${SHOAL_CPU_SLOTS}")
file(WRITE ${PROJECT_BINARY_DIR}/tests/cpu_slots.json
  "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"cpus\": [{\"id\": \"0\", \"slots\": ${SHOAL_CPU_SLOTS}}], \"waits\": [{\"id\": \"0\", \"slots\": ${SHOAL_WAIT_SLOTS}}]}]}\n")

# add_test as CMake's, plus the test's CPU slot. The arguments are passed on
# one by one in brackets, so one holding a semicolon (sh -c "a; b") stays one.
function(add_test)
  set(args)
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE ${last})
    string(APPEND args " [==[${ARGV${i}}]==]")
  endforeach()
  cmake_language(EVAL CODE "_add_test(${args})")
  if(ARGV0 STREQUAL "NAME")
    set_property(TEST ${ARGV1} PROPERTY RESOURCE_GROUPS cpus:1)
    # The long ones start first: a fresh build has no ctest cost data, so
    # ctest would run the tests in the order they were added, and those
    # across hosts, of installs and of Python (most added last) would end
    # alone with a core idle. shoal_waits raises the cost further.
    if(CMAKE_CURRENT_SOURCE_DIR MATCHES "/tests/(netns|install|python|multihost)$")
      set_property(TEST ${ARGV1} PROPERTY COST 10)
    endif()
  endif()
endfunction()

# shoal_waits(TEST...): tests that spend their time waiting (measured: CPU
# time a third of their wall time or less, on a machine running other tests
# beside them) take a waits slot, not a CPU slot, and get the label `waits`. A wait that
# lasts sleeps (core/backoff.c, ucx_wait_step), so even those with a
# deadline (netns_partition.*, netns_job.*) qualify: their PEs use little
# CPU while the timeout runs.
function(shoal_waits)
  foreach(t IN LISTS ARGN)
    if(NOT TEST ${t})
      message(FATAL_ERROR "shoal_waits: no test named ${t} in ${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
    set_property(TEST ${t} PROPERTY RESOURCE_GROUPS waits:1)
    set_property(TEST ${t} APPEND PROPERTY LABELS waits)
    set_property(TEST ${t} PROPERTY COST 20) # seconds long, beside the rest: first
  endforeach()
endfunction()

# shoal_cpus(TEST N): a test that wants N cores to itself (PROCESSORS N)
# takes N slots, or all of them where there are fewer.
function(shoal_cpus t n)
  if(n GREATER SHOAL_CPU_SLOTS)
    set(n ${SHOAL_CPU_SLOTS})
  endif()
  set_property(TEST ${t} PROPERTY RESOURCE_GROUPS cpus:${n})
endfunction()

