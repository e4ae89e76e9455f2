# SPDX-License-Identifier: GPL-2.0-only
# Integration tests: they mount through FUSE and may use loop devices, so
# they run one at a time, get more time, and exit 77 (reported as skipped,
# with the reason printed) where root, /dev/fuse or losetup is missing.
foreach(t simfs_mount simfs_mount_loop)
	if(TEST ${t})
		set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77
			RUN_SERIAL TRUE TIMEOUT 600 LABELS "simfs;integration")
	endif()
endforeach()
