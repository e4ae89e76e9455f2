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
# Which API generation the tree is is found by compiling against its
# iomap.h (never from a version string):
#   (a) baseline: struct iomap_ops, the simple path inside iomap_dio_rw();
#   (b) VFS: iomap_iter_next_fn, iomap_dio_read_simple() called by the file
#       system before iomap_dio_rw().
# Sets IOMAPSIM_KSRC_GEN (a or b), IOMAPSIM_KSRC_SOURCES (the wrapper
# translation units), IOMAPSIM_KSRC_INCLUDES (ahead of iomap/include) and
# IOMAPSIM_KSRC_DEFS.

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

set(IOMAPSIM_KSRC_INCLUDES ${_kbin}/include
	${CMAKE_SOURCE_DIR}/iomap/ksrc/include)

# Generation probes: each compiles a use of the declarations that
# generation's callers rely on, against the tree's iomap.h.
set(_probe_inc ${IOMAPSIM_KSRC_INCLUDES}
	${CMAKE_SOURCE_DIR}/iomap/include ${CMAKE_SOURCE_DIR}/block/include
	${CMAKE_SOURCE_DIR}/sim/include)
function(_ksrc_probe gen out)
	# compile only: nothing is linked against the probes
	set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
	set(src ${CMAKE_SOURCE_DIR}/cmake/ksrc/probe-${gen}.c)
	try_compile(_ok ${CMAKE_BINARY_DIR}/ksrc/probe-${gen}
		SOURCES ${src}
		CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${_probe_inc}"
		COMPILE_DEFINITIONS -D_GNU_SOURCE -DIOMAPSIM_KSRC=1
			-Werror=implicit-function-declaration -Werror=incompatible-pointer-types
			-DIOMAPSIM_KSRC_PROBE=1
		OUTPUT_VARIABLE _log)
	set(${out} ${_ok} PARENT_SCOPE)
	set(${out}_log "${_log}" PARENT_SCOPE)
endfunction()
_ksrc_probe(b _gen_b)
_ksrc_probe(a _gen_a)
if(_gen_b)
	set(IOMAPSIM_KSRC_GEN b)
	message(STATUS "  generation (b): iomap_iter_next_fn, "
		"iomap_dio_read_simple() called by the file system")
elseif(_gen_a)
	set(IOMAPSIM_KSRC_GEN a)
	message(STATUS "  generation (a): struct iomap_ops, simple path "
		"inside iomap_dio_rw()")
else()
	# Say what is missing: each declaration on its own.
	set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
	set(_parts "")
	foreach(d "HEADER:the header itself"
			"IOMAP_OPS:(a) struct iomap_ops"
			"DIO_RW_OPS:(a) iomap_dio_rw(..., const struct iomap_ops *, ...)"
			"NEXT_FN:(b) iomap_iter_next_fn"
			"READ_SIMPLE:(b) iomap_dio_read_simple(iocb, iter, begin)"
			"DIO_RW_NEXT:(b) iomap_dio_rw(..., iomap_iter_next_fn, ...)")
		string(REGEX REPLACE ":.*" "" _id "${d}")
		string(REGEX REPLACE "^[A-Z_]+:" "" _what "${d}")
		try_compile(_ok ${_kbin}/probe-${_id}
			SOURCES ${CMAKE_SOURCE_DIR}/cmake/ksrc/probe-decl.c
			CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${_probe_inc}"
			COMPILE_DEFINITIONS -D_GNU_SOURCE -DIOMAPSIM_KSRC=1
				-Werror=implicit-function-declaration
				-Werror=incompatible-pointer-types
				-DPROBE_${_id}=1
			OUTPUT_VARIABLE _log)
		if(NOT _ok)
			list(APPEND _parts "${_what}")
			file(WRITE ${_kbin}/probe-${_id}.log "${_log}")
		endif()
	endforeach()
	string(REPLACE ";" "; " _parts "${_parts}")
	message(FATAL_ERROR "IOMAPSIM_KERNEL_TREE=${_kt}: include/linux/iomap.h "
		"is of neither API generation; missing or not compiling: "
		"${_parts} (compiler output: ${_kbin}/probe-*.log)")
endif()

# The kernel is built without -Wsign-compare (it is a W=2 warning) and the
# tree's iomap.h inlines compare u64 with loff_t: every file that includes
# it would fail under -Werror.
add_compile_options(-Wno-sign-compare)

set(IOMAPSIM_KSRC_SOURCES ${CMAKE_SOURCE_DIR}/iomap/ksrc/kdirect-io.c
	${CMAKE_SOURCE_DIR}/iomap/ksrc/kiter.c)
string(REPLACE ";" "," _sums_csv "${IOMAPSIM_KSRC_SUMS}")
# the embedded copy models CONFIG_BLK_DEV_INTEGRITY=y (IOMAP_F_INTEGRITY)
set(IOMAPSIM_KSRC_DEFS IOMAPSIM_KSRC=1 CONFIG_BLK_DEV_INTEGRITY=1
	IOMAPSIM_KSRC_GEN_${IOMAPSIM_KSRC_GEN}=1)
set(IOMAPSIM_KSRC_CODE_DEFS "IOMAPSIM_KSRC_TREE=\"${_kt}\""
	"IOMAPSIM_KSRC_SUMS=\"${_sums_csv}\"")
