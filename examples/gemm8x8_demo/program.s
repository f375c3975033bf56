# A small quantized GEMM on the gemm8x8 configuration:
#   OUT[8 x 16] = clip((INP[8 x 16] . WGT[16 x 16]^T) >> 9, 0, 127)
# as two 8x8 input blocks and four 8x8 weight blocks. DRAM layout (bytes):
#   0      instructions (this file)
#   4096   micro-ops (uops.s; element 1024 in 4-byte micro-op units)
#   8192   INP, 2 elements of 8x8 int8 (element 128 in 64-byte units)
#   8320   WGT, 4 elements of 8x8 int8 (element 130 in 64-byte units)
#   16384  OUT, 2 elements of 8x8 int8 (element 256 in 64-byte units)
LOAD UOP sram_base=0 dram_base=1024 y_size=1 x_size=6 x_stride=6
LOAD INP sram_base=0 dram_base=128 y_size=1 x_size=2 x_stride=2
LOAD WGT sram_base=0 dram_base=130 y_size=1 x_size=4 x_stride=4 push_next_dep   # RAW token to compute
GEMM reset_reg uop_bgn=0 uop_end=4 iter_out=1 iter_in=1                       # zero ACC[0..1]
GEMM pop_prev_dep uop_bgn=0 uop_end=4 iter_out=1 iter_in=1                    # waits for the loads
ALU SHR use_imm imm=9 uop_bgn=4 uop_end=6 iter_out=1 iter_in=1
ALU MAX use_imm imm=0 uop_bgn=4 uop_end=6 iter_out=1 iter_in=1
ALU MIN use_imm imm=127 uop_bgn=4 uop_end=6 iter_out=1 iter_in=1 push_next_dep # RAW token to store
STORE OUT sram_base=0 dram_base=256 y_size=1 x_size=2 x_stride=2 pop_prev_dep push_prev_dep
FINISH pop_next_dep                                                            # waits for the store
