# The GPU JPEG decoder's build switch. SV_IO_NVJPEG: AUTO (default: on when the CUDA engine is
# built and nvJPEG's header is found, see FindNVJPEG.cmake), ON (stop if it cannot be), OFF.
# Sets SV_IO_NVJPEG_ENABLED and SV_IO_GPU_JPEG_SOURCES (the decoder, or the stub that says the
# build has none); sv_io_nvjpeg_configure(target) adds the header folder and the library folder
# the loader tries last.
set(SV_IO_NVJPEG AUTO CACHE STRING "GPU JPEG decoding with nvJPEG: AUTO, ON or OFF")
set_property(CACHE SV_IO_NVJPEG PROPERTY STRINGS AUTO ON OFF)

set(SV_IO_NVJPEG_ENABLED OFF)
if(NOT SV_IO_NVJPEG STREQUAL "OFF" AND SV_WITH_CUDA)
  list(APPEND CMAKE_MODULE_PATH "${PROJECT_SOURCE_DIR}/cmake")
  find_package(NVJPEG QUIET)
  if(NVJPEG_FOUND)
    set(SV_IO_NVJPEG_ENABLED ON)
  endif()
endif()
if(SV_IO_NVJPEG STREQUAL "ON" AND NOT SV_IO_NVJPEG_ENABLED)
  message(FATAL_ERROR "SV_IO_NVJPEG=ON but nvjpeg.h was not found (needs the CUDA engine; set NVJPEG_ROOT, "
                      "or pip install nvidia-nvjpeg into the Python that builds, or put its wheel in .whl/)")
endif()
if(SV_IO_NVJPEG_ENABLED)
  message(STATUS "streamvision: GPU JPEG decoding with nvJPEG ON (header from ${NVJPEG_SOURCE}: ${NVJPEG_INCLUDE_DIR})")
  set(SV_IO_GPU_JPEG_SOURCES ${PROJECT_SOURCE_DIR}/src/io/jpeg_gpu_nvjpeg.cpp ${PROJECT_SOURCE_DIR}/src/io/nvjpeg_library.cpp)
else()
  message(STATUS "streamvision: GPU JPEG decoding with nvJPEG OFF")
  set(SV_IO_GPU_JPEG_SOURCES ${PROJECT_SOURCE_DIR}/src/io/jpeg_gpu_unavailable.cpp)
endif()

function(sv_io_nvjpeg_configure target)
  if(NOT SV_IO_NVJPEG_ENABLED)
    return()
  endif()
  target_include_directories(${target} PRIVATE "${NVJPEG_INCLUDE_DIR}")
  if(NVJPEG_LIBRARY_DIR)
    target_compile_definitions(${target} PRIVATE SV_NVJPEG_LIBRARY_DIR="${NVJPEG_LIBRARY_DIR}")
  endif()
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
