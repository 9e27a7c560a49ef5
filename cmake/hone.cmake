# Helpers for hone's targets: warnings as errors in our code, and libraries whose headers are
# reachable only by targets that link them (so a forbidden include fails to build).

function(hone_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers)
  # GCC 12 reports -Wrestrict false positives inside std::string at -O3 (GCC bug 105329).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()

# hone_library(NAME SOURCES a.cpp b.cpp PUBLIC_DEPS lib ... DEPS lib ...)
# Headers of server/NAME are included as "NAME/file.h"; the include root is a build-tree folder
# holding only a link to this library's folder, so only dependents see them. DEPS are private:
# their headers reach this library's sources only. PUBLIC_DEPS are what this library's public
# headers include, and reach its dependents too; list there only what a header needs, so a front
# end that includes a layer below the one it links fails to build.
function(hone_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;DEPS" ${ARGN})
  set(target hone_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  set(inc ${CMAKE_BINARY_DIR}/include-roots/${name})
  file(MAKE_DIRECTORY ${inc})
  if(NOT EXISTS ${inc}/${name})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${inc}/${name} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC ${inc})
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_DEPS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  hone_warnings(${target})
endfunction()
