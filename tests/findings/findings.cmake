# SPDX-License-Identifier: GPL-2.0-only
# Real-kernel reproducers of the simulator's findings (docs/findings/):
# small programs with the file system and device setup in their header,
# built with the project, run by hand or by tests/oracle-kernel.c's cases.
# In the fuzzing configuration every object carries the coverage
# callbacks, so these link libFuzzer without its main() as the other
# programs do (IOMAPSIM_PROGRAM_LIBS); where that library is missing only
# the fuzz targets are built.
if(NOT IOMAPSIM_FUZZ_ONLY)
	add_executable(dio_write_efault tests/findings/dio-write-efault.c)
	target_link_libraries(dio_write_efault PRIVATE ${IOMAPSIM_PROGRAM_LIBS})
	add_executable(dio_iovec_past_segments
		tests/findings/dio-iovec-past-segments.c)
	target_link_libraries(dio_iovec_past_segments PRIVATE
		${IOMAPSIM_PROGRAM_LIBS})
endif()
