# Micro-op s serves buffer slot s: accumulators and inputs 8s.., weight s.
UOP dst=0 src=0 wgt=0
UOP dst=8 src=8 wgt=1
