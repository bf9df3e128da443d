# Tooling for users: shoalcc/shoalc++ wrappers (one for the build tree, one
# for the install tree), a pkg-config file and a CMake package.
include(CMakePackageConfigHelpers)

# The OpenSHMEM version the headers declare, for the wrappers' --showme:version.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/shmem.h spec REGEX "^#define SHMEM_M(AJ|IN)OR_VERSION ")
string(REGEX REPLACE ".*MAJOR_VERSION ([0-9]+).*MINOR_VERSION ([0-9]+).*" "\\1.\\2" SHOAL_SPEC_VERSION "${spec}")

function(shoal_make_wrapper name language compiler_var default_compiler include_dir lib_dir out)
  set(NAME ${name})
  set(LANGUAGE ${language})
  set(VERSION ${PROJECT_VERSION})
  set(SPEC_VERSION ${SHOAL_SPEC_VERSION})
  set(COMPILER_VAR ${compiler_var})
  set(DEFAULT_COMPILER ${default_compiler})
  set(INCLUDE_DIR ${include_dir})
  set(LIB_DIR ${lib_dir})
  configure_file(${PROJECT_SOURCE_DIR}/tools/shoalcc.in ${out} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
endfunction()

set(SHOAL_INSTALL_INC "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
set(SHOAL_INSTALL_LIB "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
foreach(kind build install)
  if(kind STREQUAL "build")
    set(inc ${PROJECT_SOURCE_DIR}/include)
    set(lib ${PROJECT_BINARY_DIR})
    set(dir ${PROJECT_BINARY_DIR}/tools)
  else()
    set(inc ${SHOAL_INSTALL_INC})
    set(lib ${SHOAL_INSTALL_LIB})
    set(dir ${PROJECT_BINARY_DIR}/install-tools)
  endif()
  shoal_make_wrapper(shoalcc C CC ${CMAKE_C_COMPILER} ${inc} ${lib} ${dir}/shoalcc)
  shoal_make_wrapper(shoalc++ C++ CXX ${CMAKE_CXX_COMPILER} ${inc} ${lib} ${dir}/shoalc++)
endforeach()
install(PROGRAMS ${PROJECT_BINARY_DIR}/install-tools/shoalcc ${PROJECT_BINARY_DIR}/install-tools/shoalc++
  DESTINATION ${CMAKE_INSTALL_BINDIR})

# The names OpenSHMEM build scripts look for, as links to Shoal's tools: in
# the build tree (tools/) always, in the install tree unless turned off.
option(SHOAL_INSTALL_OSH_NAMES "Install oshcc, oshc++, oshCC, oshcxx and oshrun links" ON)
set(SHOAL_OSH_LINKS oshcc:shoalcc oshc++:shoalc++ oshCC:shoalc++ oshcxx:shoalc++ oshrun:shoalrun)
foreach(pair IN LISTS SHOAL_OSH_LINKS)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 link)
  list(GET pair 1 tool)
  file(CREATE_LINK ${tool} ${PROJECT_BINARY_DIR}/tools/${link} SYMBOLIC)
  if(SHOAL_INSTALL_OSH_NAMES)
    install(CODE "file(CREATE_LINK ${tool} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${link}\" SYMBOLIC)")
  endif()
endforeach()

file(RELATIVE_PATH SHOAL_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/tools/shoal.pc.in ${PROJECT_BINARY_DIR}/shoal.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/shoal.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(SHOAL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Shoal)
file(RELATIVE_PATH SHOAL_REL_BINDIR ${CMAKE_INSTALL_PREFIX}/${SHOAL_CMAKE_DIR}
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/ShoalConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ShoalConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ShoalConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(EXPORT ShoalTargets NAMESPACE Shoal:: DESTINATION ${SHOAL_CMAKE_DIR})
install(FILES ${PROJECT_BINARY_DIR}/ShoalConfig.cmake ${PROJECT_BINARY_DIR}/ShoalConfigVersion.cmake
  DESTINATION ${SHOAL_CMAKE_DIR})
