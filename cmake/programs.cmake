# SPDX-License-Identifier: GPL-2.0-only
# The iomapsim command and the benchmark programs (bench/<layer>_*.c; they
# print figures and are never run as tests).
file(GLOB CLI_SRC CONFIGURE_DEPENDS sim/cli/*.c)
if(CLI_SRC AND TARGET testfs)
	add_executable(iomapsim ${CLI_SRC})
	if(TARGET iomapsim_core)
		target_link_libraries(iomapsim PRIVATE iomapsim_core)
	else()
		target_link_libraries(iomapsim PRIVATE testfs)
	endif()
	# bench --profile charges each function to the layer of its file
	target_compile_definitions(iomapsim PRIVATE
		IOMAPSIM_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endif()

file(GLOB BENCH_SRC CONFIGURE_DEPENDS bench/*_*.c)
foreach(src ${BENCH_SRC})
	get_filename_component(name ${src} NAME_WE)
	string(REGEX MATCH "^[a-z]+" layer ${name})
	add_executable(bench_${name} ${src})
	if(layer STREQUAL "block")
		target_link_libraries(bench_${name} PRIVATE block)
	elseif(layer STREQUAL "iomap")
		target_link_libraries(bench_${name} PRIVATE testfs)
	elseif(layer STREQUAL "simfs" AND TARGET iomapsim_core)
		target_link_libraries(bench_${name} PRIVATE iomapsim_core)
	else()
		target_link_libraries(bench_${name} PRIVATE sim)
	endif()
endforeach()
