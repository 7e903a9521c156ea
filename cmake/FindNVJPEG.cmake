# Finds nvJPEG's header (nvjpeg.h) for the GPU JPEG decoder, and the folder of libnvjpeg.so.13.
#
# The library is not linked (src/io/nvjpeg_library.hpp loads it at first use), so only the header
# is required; the folder, when known, is compiled in as the last place the loader looks.
# Searched, first hit wins:
#   1. NVJPEG_ROOT (CMake or environment variable): ROOT/include/nvjpeg.h, ROOT/lib/libnvjpeg.so.13
#   2. the CUDA toolkit's include folder (full toolkits from the .run/.deb installers have it)
#   3. the Python environment that builds us (Python_EXECUTABLE / Python3_EXECUTABLE, else python3
#      on the PATH): the PyPI wheel nvidia-nvjpeg (CUDA 13: nvidia/cu13/include, nvidia/cu13/lib)
#      on its sys.path
#   4. a downloaded wheel in the source tree's .whl/ (nvidia_nvjpeg-*.whl, what is carried to a
#      machine without internet): unpacked into the build folder
# Sets NVJPEG_FOUND, NVJPEG_INCLUDE_DIR, NVJPEG_LIBRARY_DIR (may be empty) and NVJPEG_SOURCE (how).

set(NVJPEG_INCLUDE_DIR "" CACHE PATH "folder holding nvjpeg.h")
set(NVJPEG_LIBRARY_DIR "" CACHE PATH "folder holding libnvjpeg.so.13")
set(NVJPEG_SOURCE "")

function(_nvjpeg_try include_dir lib_dir source)
  if(NOT NVJPEG_INCLUDE_DIR AND EXISTS "${include_dir}/nvjpeg.h")
    set(NVJPEG_INCLUDE_DIR "${include_dir}" CACHE PATH "folder holding nvjpeg.h" FORCE)
    if(EXISTS "${lib_dir}/libnvjpeg.so.13")
      set(NVJPEG_LIBRARY_DIR "${lib_dir}" CACHE PATH "folder holding libnvjpeg.so.13" FORCE)
    endif()
    set(NVJPEG_SOURCE "${source}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT NVJPEG_INCLUDE_DIR)
  # 1. an explicit root
  if(NOT NVJPEG_ROOT AND DEFINED ENV{NVJPEG_ROOT})
    set(NVJPEG_ROOT "$ENV{NVJPEG_ROOT}")
  endif()
  if(NVJPEG_ROOT)
    _nvjpeg_try("${NVJPEG_ROOT}/include" "${NVJPEG_ROOT}/lib" "NVJPEG_ROOT")
  endif()

  # 2. the CUDA toolkit
  if(NOT NVJPEG_INCLUDE_DIR AND CUDAToolkit_INCLUDE_DIRS)
    foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
      _nvjpeg_try("${dir}" "${CUDAToolkit_LIBRARY_DIR}" "the CUDA toolkit")
    endforeach()
  endif()

  # 3. the Python environment's nvidia-nvjpeg wheel (looked up on sys.path without importing the
  #    `nvidia` namespace, which other nvidia-* wheels may shadow)
  if(NOT NVJPEG_INCLUDE_DIR)
    set(_nvjpeg_python "")
    foreach(candidate IN ITEMS "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}")
      if(candidate AND NOT _nvjpeg_python)
        set(_nvjpeg_python "${candidate}")
      endif()
    endforeach()
    if(NOT _nvjpeg_python)
      find_program(_nvjpeg_python_found NAMES python3 python)
      set(_nvjpeg_python "${_nvjpeg_python_found}")
    endif()
    if(_nvjpeg_python)
      execute_process(
        COMMAND "${_nvjpeg_python}" -c
          "import os, sys\nfor p in sys.path:\n    d = os.path.join(p or '.', 'nvidia', 'cu13')\n    if os.path.isfile(os.path.join(d, 'include', 'nvjpeg.h')):\n        print(os.path.abspath(d)); break"
        OUTPUT_VARIABLE _nvjpeg_wheel_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_nvjpeg_wheel_dir)
        _nvjpeg_try("${_nvjpeg_wheel_dir}/include" "${_nvjpeg_wheel_dir}/lib" "the Python package nvidia-nvjpeg")
      endif()
    endif()
  endif()

  # 4. a wheel file in .whl/ of the source tree
  if(NOT NVJPEG_INCLUDE_DIR)
    file(GLOB _nvjpeg_wheels "${PROJECT_SOURCE_DIR}/.whl/nvidia_nvjpeg-*.whl")
    if(_nvjpeg_wheels)
      list(GET _nvjpeg_wheels 0 _nvjpeg_wheel)
      set(_nvjpeg_unpacked "${PROJECT_BINARY_DIR}/_deps/nvjpeg")
      file(ARCHIVE_EXTRACT INPUT "${_nvjpeg_wheel}" DESTINATION "${_nvjpeg_unpacked}")
      _nvjpeg_try("${_nvjpeg_unpacked}/nvidia/cu13/include" "${_nvjpeg_unpacked}/nvidia/cu13/lib" "${_nvjpeg_wheel}")
    endif()
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NVJPEG REQUIRED_VARS NVJPEG_INCLUDE_DIR)
