# Optional dependencies (benchmark baselines, cross-check libraries) must never stop the
# configure step. A package's own CMake config can fail hard even under QUIET: oneDNN's calls
# find_package(OpenCL REQUIRED) when the OpenCL headers (only a Debian Recommends) are absent.
# So each optional package is first found in a throw-away child CMake project; only when that
# succeeds is it found here. Either way one status line says what was found or what is skipped.
include_guard(GLOBAL)

# weft_optional_package(<var> <find_package args...> FOR "<what needs it>")
#   Sets <var> to ON (and imports the package's targets into this directory and below, and its
#   <name>_* variables into the caller's scope) when `find_package(<args>)` works, OFF otherwise.
function(weft_optional_package var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FOR" "")
  set(args ${ARG_UNPARSED_ARGUMENTS})
  list(GET args 0 name)
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/weft-probe/${name}")
  file(MAKE_DIRECTORY "${dir}/src")
  list(JOIN args " " args_text)
  file(WRITE "${dir}/src/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.25)\n"
    "project(weft_probe_${name} C CXX)\n"
    "set(CMAKE_MODULE_PATH \"${CMAKE_MODULE_PATH}\")\n"
    "find_package(${args_text} REQUIRED)\n")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${dir}/src" -B "${dir}/build" -G "${CMAKE_GENERATOR}"
            "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
            "-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    find_package(${args} QUIET)
    # find_package ran in this function's scope: hand its <name>_* results (OpenBLAS gives
    # only variables, no targets) to the caller.
    get_cmake_property(all VARIABLES)
    foreach(v IN LISTS all)
      if(v MATCHES "^${name}_")
        set(${v} "${${v}}" PARENT_SCOPE)
      endif()
    endforeach()
    set(${var} ON PARENT_SCOPE)
    message(STATUS "Optional: ${name} found; building ${ARG_FOR}")
    return()
  endif()
  # The reason is the first error's paragraph, on one line: "Could NOT find OpenCL (missing: ...)".
  string(REGEX MATCH "CMake Error[^\n]*\n(.*)" _ "${err}")
  string(REGEX REPLACE "(\n[ \t]*\n|Call Stack).*" "" reason "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "[ \t\n]+" " " reason "${reason}")
  string(STRIP "${reason}" reason)
  # CMake's two wordings of "package N not found", for the package itself or a dependency.
  if(reason MATCHES "^Could not find a package configuration file provided by \"([^\"]+)\"" OR
     reason MATCHES "^By not providing \"Find([^\"]+)\\.cmake\"")
    if(CMAKE_MATCH_1 STREQUAL name)
      set(reason "not installed: no CMake package configuration file for it")
    else()
      set(reason "it needs ${CMAKE_MATCH_1}, which was not found")
    endif()
  elseif(reason STREQUAL "")
    set(reason "its CMake package could not be loaded")
  endif()
  set(${var} OFF PARENT_SCOPE)
  message(STATUS "Optional: ${name} not usable (${reason}); skipping ${ARG_FOR}")
endfunction()
