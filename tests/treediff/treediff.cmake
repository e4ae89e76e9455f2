# SPDX-License-Identifier: GPL-2.0-only
# scripts/tree-diff.sh's own tests.  Two configure and build their own
# Release trees (under tree-diff/ in this build folder, reused between
# runs) whatever this build is, so they are registered in the plain build
# only: a sanitizer, fuzz or kernel-source build would run the same thing
# again; the third reads hand-made outcomes.  Select them with ctest -L
# treediff.
if(NOT IOMAPSIM_SANITIZE AND NOT IOMAPSIM_FUZZ AND NOT IOMAPSIM_KERNEL_TREE)
	set(IOMAPSIM_TREEDIFF_FIXTURE
		"${CMAKE_SOURCE_DIR}/../shared/kernel/vfs-2913b382" CACHE PATH
		"The kernel tree fixture tree-diff's planted-change test copies")
	add_test(NAME treediff_self COMMAND ${CMAKE_CURRENT_LIST_DIR}/self.sh
		${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/tree-diff)
	add_test(NAME treediff_planted
		COMMAND ${CMAKE_CURRENT_LIST_DIR}/planted.sh ${CMAKE_SOURCE_DIR}
		${CMAKE_BINARY_DIR}/tree-diff ${IOMAPSIM_TREEDIFF_FIXTURE})
	# both build into the same folders: one after the other, alone
	set_tests_properties(treediff_self treediff_planted PROPERTIES
		LABELS treediff SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
	# the report's explanations, from hand-made outcomes: no build
	add_test(NAME treediff_explain
		COMMAND ${CMAKE_CURRENT_LIST_DIR}/explain.sh ${CMAKE_SOURCE_DIR})
	set_tests_properties(treediff_explain PROPERTIES
		LABELS treediff TIMEOUT 60)
endif()
