# SPDX-License-Identifier: GPL-2.0-only
# Tests written in Python (tests/<layer>_<area>.py): they drive the built
# programs as a user would and check files a C suite would parse badly
# (JSON).  Each takes the build directory.  The docs_* ones check the
# repository's own text (rule IDs defined, references that resolve from a
# clone) and need no program.  Labelled by layer, as the C suites are, and
# `script`, so that `-LE script` leaves the Check suites of a layer.
find_package(Python3 COMPONENTS Interpreter)
file(GLOB PY_TEST_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/*_*.py)
foreach(src ${PY_TEST_SRC})
	get_filename_component(name ${src} NAME_WE)
	string(REGEX MATCH "^[a-z]+" layer ${name})
	if(Python3_Interpreter_FOUND AND
	   (TARGET iomapsim OR layer STREQUAL "docs"))
		add_test(NAME ${name} COMMAND Python3::Interpreter ${src}
			${CMAKE_BINARY_DIR})
		set_tests_properties(${name} PROPERTIES
			LABELS "${layer};script" TIMEOUT 120
			SKIP_RETURN_CODE 77)
	endif()
endforeach()
