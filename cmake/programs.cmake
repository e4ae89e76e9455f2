# SPDX-License-Identifier: GPL-2.0-only
# The iomapsim command and the benchmark programs (bench/<layer>_*.c; they
# print figures and are never run as tests).
file(GLOB CLI_SRC CONFIGURE_DEPENDS tools/cli/*.c)
if(CLI_SRC AND TARGET testfs AND NOT IOMAPSIM_FUZZ_ONLY)
	add_executable(iomapsim ${CLI_SRC})
	target_link_libraries(iomapsim PRIVATE ${IOMAPSIM_PROGRAM_LIBS})
	target_link_libraries(iomapsim PRIVATE fuse testfs)
	# bench --profile charges each function to the layer of its file
	target_compile_definitions(iomapsim PRIVATE
		IOMAPSIM_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endif()

file(GLOB BENCH_SRC CONFIGURE_DEPENDS bench/*_*.c)
foreach(src ${BENCH_SRC})
	if(IOMAPSIM_FUZZ_ONLY)
		break()
	endif()
	get_filename_component(name ${src} NAME_WE)
	string(REGEX MATCH "^[a-z]+" layer ${name})
	add_executable(bench_${name} ${src})
	target_link_libraries(bench_${name} PRIVATE ${IOMAPSIM_PROGRAM_LIBS})
	if(layer STREQUAL "block")
		target_link_libraries(bench_${name} PRIVATE block)
	elseif(layer STREQUAL "iomap")
		target_link_libraries(bench_${name} PRIVATE testfs)
	elseif(layer STREQUAL "simfs")
		target_link_libraries(bench_${name} PRIVATE fuse)
	else()
		target_link_libraries(bench_${name} PRIVATE sim)
	endif()
endforeach()
