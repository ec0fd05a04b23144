# Dependencies point one way, and the worker executable never links a parser.
# A parser library (one that parses untrusted bytes with libvips, Poppler or Tesseract) is
# marked; ingestd_assert_no_parsers(TARGET) walks TARGET's link closure at configure time
# and stops with an error naming the path if it reaches a marked library.

function(ingestd_mark_parser target)
  set_property(TARGET ${target} PROPERTY INGESTD_PARSER ON)
endfunction()

function(_ingestd_walk target path out_var)
  if(NOT TARGET ${target})
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  get_target_property(is_parser ${target} INGESTD_PARSER)
  if(is_parser)
    set(${out_var} "${path} -> ${target}" PARENT_SCOPE)
    return()
  endif()
  get_target_property(libs ${target} LINK_LIBRARIES)
  get_target_property(ilibs ${target} INTERFACE_LINK_LIBRARIES)
  foreach(lib IN LISTS libs ilibs)
    if(lib AND NOT lib MATCHES "NOTFOUND$" AND NOT lib MATCHES "^\\$<" AND TARGET ${lib})
      _ingestd_walk(${lib} "${path} -> ${target}" found)
      if(found)
        set(${out_var} "${found}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out_var} "" PARENT_SCOPE)
endfunction()

# Deferred to the end of the configure step, when every target exists.
function(ingestd_assert_no_parsers target)
  # The argument is written into the deferred call now (deferred calls expand variables late).
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _ingestd_assert_no_parsers_now [[${target}]])")
endfunction()

function(_ingestd_assert_no_parsers_now target)
  _ingestd_walk(${target} "" found)
  if(found)
    message(FATAL_ERROR "${target} must not link a parser library; it does through:${found}")
  endif()
endfunction()
