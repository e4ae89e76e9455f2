# SPDX-License-Identifier: GPL-2.0-only
# Real-kernel reproducers of the simulator's findings (docs/findings/):
# small programs with the file system and device setup in their header,
# built with the project, run by hand or by tests/oracle-kernel.c's cases.
add_executable(dio_write_efault tests/findings/dio-write-efault.c)
