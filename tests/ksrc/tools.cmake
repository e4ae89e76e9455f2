# SPDX-License-Identifier: GPL-2.0-only
# Tests of the scripts that hand results to the kernel's own tools; they
# need no kernel tree, so include this file in every build:
#
#	include(tests/ksrc/tools.cmake)
#
# The kernel's tools (scripts/get-kernel-tools.sh: kunit.py, checkpatch.pl)
# are fetched once into IOMAPSIM_KERNEL_TOOLS; the environment variable of
# that name, when set at test time, wins (one cache for several builds).
set(IOMAPSIM_KERNEL_TOOLS "${CMAKE_BINARY_DIR}/kernel-tools"
	CACHE PATH "Where scripts/get-kernel-tools.sh keeps the kernel's tools")

# verdicts-ktap.py's KTAP as the kernel's kunit.py parse reads it; the
# first run downloads Debian's linux-source-6.12 (~150 MB), skips (77)
# when that cannot be had
add_test(NAME ksrc_ktap COMMAND ${CMAKE_CURRENT_LIST_DIR}/ktap.sh
	${IOMAPSIM_KERNEL_TOOLS})
set_tests_properties(ksrc_ktap PROPERTIES LABELS "ksrc;tools"
	SKIP_RETURN_CODE 77 TIMEOUT 300)

# The kernel's checkpatch.pl over the kernel-shaped code (iomap/, block/):
# scripts/checkpatch.sh says what is ignored and why; clean or failing.
add_test(NAME style_checkpatch COMMAND ${CMAKE_SOURCE_DIR}/scripts/checkpatch.sh)
set_tests_properties(style_checkpatch PROPERTIES LABELS "style;tools"
	SKIP_RETURN_CODE 77 TIMEOUT 300)

# The folders are the layers (docs/architecture.md): no file includes from
# a layer above its own.
add_test(NAME style_layers COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/layers.py
	${CMAKE_SOURCE_DIR})
set_tests_properties(style_layers PROPERTIES LABELS "style;tools" TIMEOUT 60)

# clang-format (.clang-format, kernel style) over the simulator's own code
# (sim/, fs/, tools/, tests/, fuzz/, bench/): scripts/format-check.sh says
# what is left out and why.
add_test(NAME style_format COMMAND ${CMAKE_SOURCE_DIR}/scripts/format-check.sh)
set_tests_properties(style_format PROPERTIES LABELS "style;tools"
	SKIP_RETURN_CODE 77 TIMEOUT 300)

# scripts/check-tree.sh prints its page, names the failed part with its
# log and writes its KTAP file when fuzz_dio stops on the first input (a
# fixture copy with a G-02 break planted).  It configures and builds its
# own trees (under check-tree/ in this build folder, reused between runs)
# whatever this build is, so it is registered in the plain build only, as
# the tree diff's tests are; clang (libFuzzer) or no fixture: skipped.
if(NOT IOMAPSIM_SANITIZE AND NOT IOMAPSIM_FUZZ AND NOT IOMAPSIM_KERNEL_TREE)
	set(IOMAPSIM_CHECKTREE_FIXTURE
		"${CMAKE_SOURCE_DIR}/../shared/kernel/linux-6.12.117-debian"
		CACHE PATH "The kernel tree fixture check-tree's test copies")
	add_test(NAME ksrc_check_tree_fuzz_dies
		COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-tree-fuzz-dies.sh
		${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/check-tree
		${IOMAPSIM_CHECKTREE_FIXTURE} ${IOMAPSIM_KERNEL_TOOLS})
	set_tests_properties(ksrc_check_tree_fuzz_dies PROPERTIES
		LABELS "ksrc;tools;check-tree" SKIP_RETURN_CODE 77
		TIMEOUT 2400 RUN_SERIAL TRUE)
endif()
