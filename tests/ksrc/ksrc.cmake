# SPDX-License-Identifier: GPL-2.0-only
# Kernel-source mode's own tests (included when IOMAPSIM_KERNEL_TREE is
# set; see cmake/kernel-tree.cmake).
set(IOMAPSIM_KSRC_FIXTURE "${CMAKE_SOURCE_DIR}/../shared/kernel/vfs-2913b382"
	CACHE PATH "The kernel tree fixture the planted-change test copies")

add_test(NAME ksrc_checksums COMMAND ${CMAKE_CURRENT_LIST_DIR}/checksums.sh
	${IOMAPSIM_KERNEL_TREE} ${CMAKE_BINARY_DIR} $<TARGET_FILE:iomapsim>)
set_tests_properties(ksrc_checksums PROPERTIES LABELS ksrc
	SKIP_RETURN_CODE 77 TIMEOUT 60)

# configures and builds a second tree: run alone with ctest -L ksrc-planted
add_test(NAME ksrc_planted COMMAND ${CMAKE_CURRENT_LIST_DIR}/planted.sh
	${CMAKE_SOURCE_DIR} ${IOMAPSIM_KSRC_FIXTURE})
set_tests_properties(ksrc_planted PROPERTIES LABELS "ksrc;ksrc-planted"
	SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)

# Each finding's fix (a .patch file of docs/findings/) on a patched copy of
# this tree: the reproducer fixed, every other verdict unchanged.  A patch
# that does not apply (a tree the finding does not affect) is skipped.
file(GLOB _finding_patches CONFIGURE_DEPENDS
	${CMAKE_SOURCE_DIR}/docs/findings/*.patch)
foreach(p ${_finding_patches})
	get_filename_component(n ${p} NAME_WE)
	string(REGEX MATCH "^[0-9]+" n ${n})
	add_test(NAME finding_fix_${n} COMMAND
		${CMAKE_SOURCE_DIR}/tests/findings/check-fix.sh ${p}
		${IOMAPSIM_KERNEL_TREE} ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
	set_tests_properties(finding_fix_${n} PROPERTIES
		LABELS "ksrc;findings" SKIP_RETURN_CODE 77 TIMEOUT 900
		RUN_SERIAL TRUE)
endforeach()
