hardware/fpga/weft_kernel.sv
