# Micro-ops of program.s. GEMM: ACC[o] += INP[k] . WGT[2*o + k] for o, k in {0, 1}.
UOP dst=0 src=0 wgt=0
UOP dst=0 src=1 wgt=1
UOP dst=1 src=0 wgt=2
UOP dst=1 src=1 wgt=3
# ALU (src is an accumulator index, unused with an immediate)
UOP dst=0 src=0
UOP dst=1 src=1
