# 6 blocked-GEMM tiles on gemm8x8 with 2 virtual thread(s) (buffer slots).
# Each tile: load 8 input blocks and 1 weight block, reset and accumulate 8 output
# blocks 4 times, store them. Tokens: a slot's next load waits for the compute that
# used it (WAR), compute waits for its loads (RAW) and the store of the slot's previous
# tile (WAR), the store waits for compute (RAW). Inputs at byte 8192, weights at 32768,
# outputs at 16384, micro-ops at 4096.
LOAD UOP sram_base=0 dram_base=1024 y_size=1 x_size=2 x_stride=2
LOAD INP sram_base=0 dram_base=128 y_size=1 x_size=8 x_stride=8
LOAD WGT sram_base=0 dram_base=512 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=0 uop_end=1 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep
GEMM uop_bgn=0 uop_end=1 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_prev_dep push_next_dep
STORE OUT sram_base=0 dram_base=256 y_size=1 x_size=8 x_stride=8 pop_prev_dep push_prev_dep
LOAD INP sram_base=8 dram_base=136 y_size=1 x_size=8 x_stride=8
LOAD WGT sram_base=1 dram_base=513 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=1 uop_end=2 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep
GEMM uop_bgn=1 uop_end=2 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_prev_dep push_next_dep
STORE OUT sram_base=8 dram_base=264 y_size=1 x_size=8 x_stride=8 pop_prev_dep push_prev_dep
LOAD INP sram_base=0 dram_base=144 y_size=1 x_size=8 x_stride=8 pop_next_dep
LOAD WGT sram_base=0 dram_base=514 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=0 uop_end=1 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep pop_next_dep
GEMM uop_bgn=0 uop_end=1 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_prev_dep push_next_dep
STORE OUT sram_base=0 dram_base=272 y_size=1 x_size=8 x_stride=8 pop_prev_dep push_prev_dep
LOAD INP sram_base=8 dram_base=152 y_size=1 x_size=8 x_stride=8 pop_next_dep
LOAD WGT sram_base=1 dram_base=515 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=1 uop_end=2 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep pop_next_dep
GEMM uop_bgn=1 uop_end=2 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_prev_dep push_next_dep
STORE OUT sram_base=8 dram_base=280 y_size=1 x_size=8 x_stride=8 pop_prev_dep push_prev_dep
LOAD INP sram_base=0 dram_base=160 y_size=1 x_size=8 x_stride=8 pop_next_dep
LOAD WGT sram_base=0 dram_base=516 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=0 uop_end=1 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep pop_next_dep
GEMM uop_bgn=0 uop_end=1 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_next_dep
STORE OUT sram_base=0 dram_base=288 y_size=1 x_size=8 x_stride=8 pop_prev_dep
LOAD INP sram_base=8 dram_base=168 y_size=1 x_size=8 x_stride=8 pop_next_dep
LOAD WGT sram_base=1 dram_base=517 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM reset_reg uop_bgn=1 uop_end=2 iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep pop_next_dep
GEMM uop_bgn=1 uop_end=2 iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1 push_next_dep
STORE OUT sram_base=8 dram_base=296 y_size=1 x_size=8 x_stride=8 pop_prev_dep push_prev_dep
FINISH pop_next_dep
