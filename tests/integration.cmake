# SPDX-License-Identifier: GPL-2.0-only
# Integration tests: they mount through FUSE and may use loop devices, so
# they run one at a time, get more time, and exit 77 (reported as skipped,
# with the reason printed) where root, /dev/fuse or losetup is missing.
# simfs_fsx (random ops against a model) and simfs_powerloss (log-writes
# replay) pick a new seed each run and print it; see their headers.
foreach(t simfs_mount simfs_mount_loop simfs_mount_safety simfs_fsx
		simfs_powerloss simfs_lazy_umount)
	if(TEST ${t})
		set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77
			RUN_SERIAL TRUE TIMEOUT 600 LABELS "simfs;integration")
	endif()
endforeach()

# The real-kernel oracle (tests/oracle-kernel.c): ext4 and xfs on loop
# devices against `iomapsim run`.  Compiled without the simulator's
# kernel-shaped headers (they would hide the system's <linux/fs.h>), then
# linked with testfs for its data patterns; io_uring through liburing.
if(TARGET testfs AND TARGET iomapsim)
	add_library(oracle_kernel_obj OBJECT tests/oracle-kernel.c)
	target_link_libraries(oracle_kernel_obj PRIVATE PkgConfig::URING)
	add_executable(oracle_kernel $<TARGET_OBJECTS:oracle_kernel_obj>)
	target_link_libraries(oracle_kernel PRIVATE testfs PkgConfig::URING
		${IOMAPSIM_PROGRAM_LIBS})
	add_dependencies(oracle_kernel iomapsim)
	add_test(NAME oracle_kernel COMMAND oracle_kernel)
	set_tests_properties(oracle_kernel PROPERTIES SKIP_RETURN_CODE 77
		RUN_SERIAL TRUE TIMEOUT 300 LABELS "integration"
		ENVIRONMENT "IOMAPSIM_BIN=${CMAKE_BINARY_DIR}")
endif()

# The poll governor is host code of the FUSE loop: its header is there.
if(TARGET simfs_poll_gov)
	target_include_directories(simfs_poll_gov PRIVATE
		${CMAKE_SOURCE_DIR}/sim/fuse/host)
endif()
