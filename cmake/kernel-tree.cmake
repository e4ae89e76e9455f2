# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel-source mode (-DIOMAPSIM_KERNEL_TREE=PATH): the tree's own
# fs/iomap/direct-io.c and fs/iomap/iter.c, unmodified, with its
# include/linux/iomap.h, replace iomap/direct-io.c and iomap/iter.c.
#
# The three files are copied byte for byte into the build tree
# (ksrc/fs/iomap/, ksrc/include/linux/): compiled where they lie, a full
# tree's fs/iomap/trace.h and internal.h would win over ours for the
# quoted includes, and putting PATH/include on the include path would
# bring in every other header of the kernel.  Ours for the names those
# sources include by relative name live in iomap/ksrc/fs/ (searched with
# -iquote); the headers the tree's iomap.h and direct-io.c want that the
# simulator does not otherwise have live in iomap/ksrc/include/.
#
# What the tree offers is found feature by feature, never from a version
# string (cmake/ksrc/features.cmake): each probe compiles a use of one
# declaration against the tree's iomap.h, or the tree's direct-io.c itself
# with one question appended.  The answers go into a generated
# <sim/iomap_probed.h>, which shadows the embedded copy's
# (iomap/include/sim/iomap_probed.h); <sim/iomap_features.h> turns them
# into what the file system side, the shims and the tests test.
#
# Sets IOMAPSIM_KSRC_SOURCES (the wrapper translation units),
# IOMAPSIM_KSRC_IOEND_DIRECT (1: the tree has iomap_finish_ioend_direct()),
# IOMAPSIM_KSRC_INCLUDES (ahead of iomap/include), IOMAPSIM_KSRC_DEFS and
# IOMAPSIM_KSRC_CODE_DEFS (for iomap/code.c).

set(_kt ${IOMAPSIM_KERNEL_TREE})
get_filename_component(_kt ${_kt} ABSOLUTE)
set(_kfiles fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h)
set(_missing "")
foreach(f ${_kfiles})
	if(NOT EXISTS ${_kt}/${f})
		list(APPEND _missing ${f})
	endif()
endforeach()
if(_missing)
	string(REPLACE ";" ", " _missing "${_missing}")
	message(FATAL_ERROR "IOMAPSIM_KERNEL_TREE=${_kt}: missing ${_missing}")
endif()

set(_kbin ${CMAKE_BINARY_DIR}/ksrc)
message(STATUS "Kernel-source mode: tree ${_kt}")
set(IOMAPSIM_KSRC_SUMS "")
foreach(f ${_kfiles})
	file(SHA256 ${_kt}/${f} _sum)
	message(STATUS "  ${f} sha256 ${_sum}")
	list(APPEND IOMAPSIM_KSRC_SUMS "${f}=${_sum}")
	# byte for byte; a change in the tree reconfigures and recopies
	configure_file(${_kt}/${f} ${_kbin}/${f} COPYONLY)
endforeach()

# Our <linux/iomap.h> wrapper first (it includes the tree's copy with
# include_next), then the tree's copy and the generated <sim/...>, then
# the headers the tree wants that the simulator has nowhere else.
set(IOMAPSIM_KSRC_INCLUDES ${CMAKE_SOURCE_DIR}/iomap/ksrc/wrap
	${_kbin}/include ${CMAKE_SOURCE_DIR}/iomap/ksrc/include)

include(${CMAKE_CURRENT_LIST_DIR}/ksrc/features.cmake)
# the tree has iomap_finish_ioend_direct(): iomap/ioend.c is built
set(IOMAPSIM_KSRC_IOEND_DIRECT ${_fv_IOEND_DIRECT})

set(IOMAPSIM_KSRC_SOURCES ${CMAKE_SOURCE_DIR}/iomap/ksrc/kdirect-io.c
	${CMAKE_SOURCE_DIR}/iomap/ksrc/kiter.c)
string(REPLACE ";" "," _sums_csv "${IOMAPSIM_KSRC_SUMS}")
# the embedded copy models CONFIG_BLK_DEV_INTEGRITY=y (IOMAP_F_INTEGRITY)
set(IOMAPSIM_KSRC_DEFS IOMAPSIM_KSRC=1 CONFIG_BLK_DEV_INTEGRITY=1)
set(IOMAPSIM_KSRC_CODE_DEFS "IOMAPSIM_KSRC_TREE=\"${_kt}\""
	"IOMAPSIM_KSRC_SUMS=\"${_sums_csv}\"")
