# The GPU backend benchmark (scripts/bench/gpu_bench.sh runs it): built only where the CUDA
# toolkit is found. cuBLAS, cuBLASLt and the CUDA runtime come from the toolkit; cuDNN is
# found beside it (header and library) and, when missing, the benchmark is not built (said in
# one status line). None of them links libcuda: without a driver it starts and says so.
if(WEFT_HAVE_CUDA)
  find_path(WEFT_CUDNN_INCLUDE cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(WEFT_CUDNN_LIB cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(WEFT_CUDNN_INCLUDE AND WEFT_CUDNN_LIB AND TARGET CUDA::cublasLt)
    add_executable(bench_gpu ${CMAKE_CURRENT_LIST_DIR}/gpu_bench.cc)
    target_include_directories(bench_gpu SYSTEM PRIVATE ${WEFT_CUDNN_INCLUDE})
    target_link_libraries(bench_gpu PRIVATE weft_runtime_gpu CUDA::cublas CUDA::cublasLt
      CUDA::cudart ${WEFT_CUDNN_LIB} CLI11::CLI11)
    message(STATUS "GPU benchmark: cuBLAS, cuBLASLt and cuDNN (${WEFT_CUDNN_LIB})")
  else()
    message(STATUS "GPU benchmark: cuDNN or cuBLASLt not found beside CUDA; bench_gpu not built")
  endif()
endif()
