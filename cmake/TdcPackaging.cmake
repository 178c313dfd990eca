include_guard(GLOBAL)
# `cpack` in a build tree (or `cpack -G DEB` / `-G TGZ`): the install
# (cmake/TdcInstall.cmake) as a Debian package and a tarball, named for the
# LibTorch build they were made against, e.g.
#   tdc-0.2.0-torch2.13.0-cpu_amd64.deb      installs under /usr
#   tdc-0.2.0-torch2.13.0-cpu_amd64.tar.gz   one folder, a prefix to put anywhere
# The LibTorch itself is the lab's: the programs look for it where this
# build found it (their RUNPATH: TDC_TORCH_LIBRARY_DIR in share/tdc/build)
# and LD_LIBRARY_PATH overrides that; a LibTorch from a Debian package is a
# dependency of the .deb. docs/install.md says so for labs.

# The Debian packages of the shared libraries the programs load (found by
# dpkg; a LibTorch from pip or a tarball is no package, and not declared).
function(_tdc_owning_packages out)
  set(packages "")
  find_program(_tdc_dpkg_query dpkg-query)
  foreach(library IN LISTS ARGN)
    get_filename_component(real "${library}" REALPATH)
    if(_tdc_dpkg_query AND EXISTS "${real}")
      execute_process(COMMAND "${_tdc_dpkg_query}" -S "${real}" RESULT_VARIABLE status
        OUTPUT_VARIABLE owner ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(status EQUAL 0 AND owner MATCHES "^([^:,]+)")
        list(APPEND packages "${CMAKE_MATCH_1}")
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES packages)
  set(${out} "${packages}" PARENT_SCOPE)
endfunction()

set(_tdc_runtime_libraries ${_tdc_torch_libraries})
if(TDC_BUILD_BENCHMARKS AND benchmark_DIR)  # (bench/ found it; its targets are that folder's)
  find_library(_tdc_benchmark_library benchmark HINTS "${benchmark_DIR}/../.." NO_DEFAULT_PATH)
  if(_tdc_benchmark_library)
    list(APPEND _tdc_runtime_libraries "${_tdc_benchmark_library}")
  endif()
endif()
_tdc_owning_packages(_tdc_library_packages ${_tdc_runtime_libraries})
# The LibTorch headers and CMake files, for vendors building on this TDC.
_tdc_owning_packages(_tdc_torch_dev_packages "${Torch_DIR}/TorchConfig.cmake")

find_program(_tdc_dpkg dpkg)
set(_tdc_architecture "")
if(_tdc_dpkg)
  execute_process(COMMAND "${_tdc_dpkg}" --print-architecture OUTPUT_VARIABLE _tdc_architecture
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT _tdc_architecture)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _tdc_architecture)
  string(REPLACE "x86_64" "amd64" _tdc_architecture "${_tdc_architecture}")
  string(REPLACE "aarch64" "arm64" _tdc_architecture "${_tdc_architecture}")
endif()

set(TDC_PACKAGE_NAME "tdc-${PROJECT_VERSION}-torch${TDC_TORCH_VERSION}-${TDC_TORCH_VARIANT}_${_tdc_architecture}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_NAME tdc)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "TDC")
set(CPACK_PACKAGE_CONTACT "TDC maintainers <tdc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Torch Device Conformance ${PROJECT_VERSION} for LibTorch ${TDC_TORCH_VERSION} (${TDC_TORCH_VARIANT})")
set(CPACK_PACKAGE_FILE_NAME "${TDC_PACKAGE_NAME}")
set(CPACK_STRIP_FILES ON)  # programs and the loopback; static libraries keep their symbols
set(CPACK_DEBIAN_FILE_NAME "${TDC_PACKAGE_NAME}.deb")
set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}+torch${TDC_TORCH_VERSION}.${TDC_TORCH_VARIANT}")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "${_tdc_architecture}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# ctest runs the checks; python3 the tools (the standard library only).
# GoogleTest is linked into the programs; Google Benchmark is a shared library.
set(_tdc_depends "cmake (>= 3.22)" "python3 (>= 3.9)" "libc6" "libstdc++6" ${_tdc_library_packages})
list(JOIN _tdc_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# To build a vendor suite on it (find_package(TDC)), and a run's report.html
# (tdc run-report, tdc report: Jinja2 and matplotlib, which also plots bandwidth).
set(_tdc_recommends g++ libgtest-dev nlohmann-json3-dev libbenchmark-dev python3-jinja2 python3-matplotlib
  ${_tdc_torch_dev_packages})
list(JOIN _tdc_recommends ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "C++ conformance suite for LibTorch devices: every check of the suites,\n"
  "tdc_batch, the benchmarks, the loopback backend, the tools (tdc) and the CMake\n"
  "package (find_package(TDC)) vendors write their own checks on.\n"
  "Built against LibTorch ${TDC_TORCH_VERSION} (${TDC_TORCH_VARIANT}) at ${_tdc_torch_library_dir}:\n"
  "the programs look for it there, LD_LIBRARY_PATH overrides (see\n"
  "/usr/share/doc/tdc/install.md).")
string(JOIN "" CPACK_DEBIAN_PACKAGE_DESCRIPTION ${CPACK_DEBIAN_PACKAGE_DESCRIPTION})
include(CPack)
