# SPDX-License-Identifier: GPL-2.0-only
# Integration tests: they mount through FUSE and may use loop devices, so
# they run one at a time, get more time, and exit 77 (reported as skipped,
# with the reason printed) where root, /dev/fuse or losetup is missing.
# simfs_fsx (random ops against a model) and simfs_powerloss (log-writes
# replay) pick a new seed each run and print it; see their headers.
foreach(t fuse_mount fuse_mount_loop fuse_mount_safety fuse_mount_eof
		fuse_lazy_umount simfs_fsx simfs_powerloss)
	if(TEST ${t})
		string(REGEX MATCH "^[a-z]+" layer ${t})
		set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77
			RUN_SERIAL TRUE TIMEOUT 600
			LABELS "${layer};integration")
	endif()
endforeach()

# The real-kernel oracle (tests/oracle-kernel.c): ext4 and xfs on a block
# device against `iomapsim run`.  Built here, run by scripts/uml-oracle.sh
# as the init of a UML kernel built from the tree under test, never as a
# CTest test: the machine's own kernel is no pinned oracle (it changes
# under the same version string, and with it the findings it carries).
# `build/oracle_kernel` on loop devices asks the machine's kernel by hand.
# Compiled without the simulator's kernel-shaped headers (they would hide
# the system's <linux/fs.h>), then linked with testfs for its data
# patterns; io_uring through liburing.
if(TARGET testfs AND TARGET iomapsim)
	add_library(oracle_kernel_obj OBJECT tests/oracle-kernel.c)
	target_link_libraries(oracle_kernel_obj PRIVATE PkgConfig::URING)
	add_executable(oracle_kernel $<TARGET_OBJECTS:oracle_kernel_obj>)
	target_link_libraries(oracle_kernel PRIVATE testfs PkgConfig::URING
		${IOMAPSIM_PROGRAM_LIBS})
	add_dependencies(oracle_kernel iomapsim)
endif()

# The real side of `scripts/tree-diff.sh --real` (tests/real/real-batch.c):
# `iomapsim batch` request lines as system calls on a real file system,
# built as the oracle is, without the kernel-shaped headers, and linked
# with testfs for its data patterns.  Its parsing is tested without a
# kernel by tests/real_batch.py.
if(TARGET testfs)
	# tools/cli/args.c: the option and line reading of `iomapsim batch`,
	# plain C, so that both sides take a request line the same way
	add_library(real_batch_obj OBJECT tests/real/real-batch.c
		tools/cli/args.c)
	target_include_directories(real_batch_obj PRIVATE
		${CMAKE_SOURCE_DIR}/tools/cli)
	target_link_libraries(real_batch_obj PRIVATE PkgConfig::URING)
	add_executable(real_batch $<TARGET_OBJECTS:real_batch_obj>)
	target_link_libraries(real_batch PRIVATE testfs PkgConfig::URING
		${IOMAPSIM_PROGRAM_LIBS})
endif()

# The poll governor is host code of the FUSE loop: its header is there.
if(TARGET fuse_poll_gov)
	target_include_directories(fuse_poll_gov PRIVATE
		${CMAKE_SOURCE_DIR}/tools/fuse/host)
endif()
