# The CPU backend benchmark (scripts/bench/cpu_bench.sh runs it). OpenBLAS and oneDNN are
# optional baselines, probed at the top level: each is compiled in when usable, and the product
# never needs them.
if(WEFT_CPU_BACKEND)
  add_executable(bench_cpu ${CMAKE_CURRENT_LIST_DIR}/cpu_bench.cc)
  target_link_libraries(bench_cpu PRIVATE weft_runtime_cpu CLI11::CLI11)
  if(WEFT_HAVE_OPENBLAS)
    target_include_directories(bench_cpu SYSTEM PRIVATE ${OpenBLAS_INCLUDE_DIRS})
    target_link_libraries(bench_cpu PRIVATE ${OpenBLAS_LIBRARIES})
    target_compile_definitions(bench_cpu PRIVATE WEFT_HAVE_OPENBLAS)
  endif()
  if(WEFT_HAVE_DNNL)
    target_link_libraries(bench_cpu PRIVATE DNNL::dnnl)
    target_compile_definitions(bench_cpu PRIVATE WEFT_HAVE_DNNL)
  endif()
endif()

# The CPU schedule search for the benchmark's cases (scripts/bench/cpu_tune_bench.sh).
if(WEFT_CPU_BACKEND)
  add_executable(bench_cpu_tune_search ${CMAKE_CURRENT_LIST_DIR}/cpu_tune_search.cc)
  target_link_libraries(bench_cpu_tune_search PRIVATE weft_runtime_tune CLI11::CLI11)
  target_link_libraries(bench_cpu PRIVATE weft_runtime_tune)
endif()

# The graph executor's CPU nodes, plain loops against the LLVM kernels
# (scripts/bench/graph_cpu_kernels.sh).
if(WEFT_CPU_BACKEND)
  add_executable(bench_graph_cpu_kernels ${CMAKE_CURRENT_LIST_DIR}/graph_cpu_kernels.cc)
  target_include_directories(bench_graph_cpu_kernels PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(bench_graph_cpu_kernels PRIVATE weft_runtime_graph CLI11::CLI11)
endif()

# Shape-generic CPU schedules (issue #29): the dispatch-table tuning run and the random-shape
# benchmark against oneDNN (scripts/bench/cpu_generic_bench.sh).
if(WEFT_CPU_BACKEND)
  add_executable(bench_cpu_dispatch_tune ${CMAKE_CURRENT_LIST_DIR}/cpu_dispatch_tune.cc)
  target_link_libraries(bench_cpu_dispatch_tune PRIVATE weft_runtime_tune weft_runtime_cpu CLI11::CLI11)
  add_executable(bench_cpu_generic ${CMAKE_CURRENT_LIST_DIR}/cpu_generic.cc)
  target_link_libraries(bench_cpu_generic PRIVATE weft_runtime_tune weft_runtime_cpu CLI11::CLI11)
  if(WEFT_HAVE_DNNL)
    target_link_libraries(bench_cpu_generic PRIVATE DNNL::dnnl)
    target_compile_definitions(bench_cpu_generic PRIVATE WEFT_HAVE_DNNL)
  endif()
endif()

# ResNet-18/50 convolutions, fp32 and int8, against oneDNN (scripts/bench/cpu_resnet_conv_bench.sh).
if(WEFT_CPU_BACKEND)
  add_executable(bench_cpu_resnet_conv ${CMAKE_CURRENT_LIST_DIR}/cpu_resnet_conv.cc)
  target_link_libraries(bench_cpu_resnet_conv PRIVATE weft_runtime_tune weft_runtime_cpu CLI11::CLI11)
  if(WEFT_HAVE_DNNL)
    target_link_libraries(bench_cpu_resnet_conv PRIVATE DNNL::dnnl)
    target_compile_definitions(bench_cpu_resnet_conv PRIVATE WEFT_HAVE_DNNL)
  endif()
endif()

# An ONNX CNN's fp32 inference on the LLVM path against the same graph on oneDNN
# (scripts/bench/onnx_onednn.sh).
if(TARGET weft_onnx_run)
  add_executable(bench_onnx_onednn ${CMAKE_CURRENT_LIST_DIR}/onnx_onednn.cc)
  target_include_directories(bench_onnx_onednn PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(bench_onnx_onednn PRIVATE weft_onnx_run CLI11::CLI11)
  if(WEFT_HAVE_DNNL)
    target_link_libraries(bench_onnx_onednn PRIVATE DNNL::dnnl)
    target_compile_definitions(bench_onnx_onednn PRIVATE WEFT_HAVE_DNNL)
  endif()
endif()
