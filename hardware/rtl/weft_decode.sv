// Instruction decoding: the fields of a MEM (LOAD/STORE) and of a GEMM/ALU instruction,
// widened to fixed sizes (weft_rtl_pkg::mem_insn_t, cmp_insn_t) from the generated layout:
// every position and width is the generated package's, none is written here.
module weft_decode (
  input  logic [127:0]             insn_i,
  output weft_rtl_pkg::mem_insn_t  mem_o,
  output weft_rtl_pkg::cmp_insn_t  cmp_o,
  output logic [3:0]               log_elem_o  // log2 of the MEM instruction's element bytes
);
  function automatic logic [31:0] field(logic [127:0] insn, int unsigned lsb, int unsigned w);
    field = 32'(insn >> lsb) & ((w >= 32) ? 32'hFFFF_FFFF : ((32'd1 << w) - 32'd1));
  endfunction

  // MEM fields
  always_comb begin
    mem_o.op        = 3'(field(insn_i, weft_pkg::MEM_OPCODE_LSB, weft_pkg::MEM_OPCODE_W));
    mem_o.pop_prev  = field(insn_i, weft_pkg::MEM_POP_PREV_DEP_LSB, 1) != 0;
    mem_o.pop_next  = field(insn_i, weft_pkg::MEM_POP_NEXT_DEP_LSB, 1) != 0;
    mem_o.push_prev = field(insn_i, weft_pkg::MEM_PUSH_PREV_DEP_LSB, 1) != 0;
    mem_o.push_next = field(insn_i, weft_pkg::MEM_PUSH_NEXT_DEP_LSB, 1) != 0;
    mem_o.mem_type  = 3'(field(insn_i, weft_pkg::MEM_MEMORY_TYPE_LSB, weft_pkg::MEM_MEMORY_TYPE_W));
    mem_o.sram_base = field(insn_i, weft_pkg::MEM_SRAM_BASE_LSB, weft_pkg::MEM_SRAM_BASE_W);
    mem_o.dram_base = field(insn_i, weft_pkg::MEM_DRAM_BASE_LSB, weft_pkg::MEM_DRAM_BASE_W);
    mem_o.y_size    = 16'(field(insn_i, weft_pkg::MEM_Y_SIZE_LSB, weft_pkg::MEM_Y_SIZE_W));
    mem_o.x_size    = 16'(field(insn_i, weft_pkg::MEM_X_SIZE_LSB, weft_pkg::MEM_X_SIZE_W));
    mem_o.x_stride  = 16'(field(insn_i, weft_pkg::MEM_X_STRIDE_LSB, weft_pkg::MEM_X_STRIDE_W));
    mem_o.y_pad_0   = 4'(field(insn_i, weft_pkg::MEM_Y_PAD_0_LSB, weft_pkg::MEM_Y_PAD_0_W));
    mem_o.y_pad_1   = 4'(field(insn_i, weft_pkg::MEM_Y_PAD_1_LSB, weft_pkg::MEM_Y_PAD_1_W));
    mem_o.x_pad_0   = 4'(field(insn_i, weft_pkg::MEM_X_PAD_0_LSB, weft_pkg::MEM_X_PAD_0_W));
    mem_o.x_pad_1   = 4'(field(insn_i, weft_pkg::MEM_X_PAD_1_LSB, weft_pkg::MEM_X_PAD_1_W));
  end

  // GEMM/ALU fields
  logic [31:0] imm_raw;
  always_comb begin
    cmp_o.op             = 3'(field(insn_i, weft_pkg::GEMM_OPCODE_LSB, weft_pkg::GEMM_OPCODE_W));
    cmp_o.pop_prev       = field(insn_i, weft_pkg::GEMM_POP_PREV_DEP_LSB, 1) != 0;
    cmp_o.pop_next       = field(insn_i, weft_pkg::GEMM_POP_NEXT_DEP_LSB, 1) != 0;
    cmp_o.push_prev      = field(insn_i, weft_pkg::GEMM_PUSH_PREV_DEP_LSB, 1) != 0;
    cmp_o.push_next      = field(insn_i, weft_pkg::GEMM_PUSH_NEXT_DEP_LSB, 1) != 0;
    cmp_o.reset_reg      = field(insn_i, weft_pkg::GEMM_RESET_REG_LSB, weft_pkg::GEMM_RESET_REG_W) != 0;
    cmp_o.uop_bgn        = 16'(field(insn_i, weft_pkg::GEMM_UOP_BGN_LSB, weft_pkg::GEMM_UOP_BGN_W));
    cmp_o.uop_end        = 16'(field(insn_i, weft_pkg::GEMM_UOP_END_LSB, weft_pkg::GEMM_UOP_END_W));
    cmp_o.iter_out       = 16'(field(insn_i, weft_pkg::GEMM_ITER_OUT_LSB, weft_pkg::GEMM_ITER_OUT_W));
    cmp_o.iter_in        = 16'(field(insn_i, weft_pkg::GEMM_ITER_IN_LSB, weft_pkg::GEMM_ITER_IN_W));
    cmp_o.dst_factor_out = 16'(field(insn_i, weft_pkg::GEMM_DST_FACTOR_OUT_LSB, weft_pkg::GEMM_DST_FACTOR_OUT_W));
    cmp_o.dst_factor_in  = 16'(field(insn_i, weft_pkg::GEMM_DST_FACTOR_IN_LSB, weft_pkg::GEMM_DST_FACTOR_IN_W));
    cmp_o.src_factor_out = 16'(field(insn_i, weft_pkg::GEMM_SRC_FACTOR_OUT_LSB, weft_pkg::GEMM_SRC_FACTOR_OUT_W));
    cmp_o.src_factor_in  = 16'(field(insn_i, weft_pkg::GEMM_SRC_FACTOR_IN_LSB, weft_pkg::GEMM_SRC_FACTOR_IN_W));
    cmp_o.wgt_factor_out = 16'(field(insn_i, weft_pkg::GEMM_WGT_FACTOR_OUT_LSB, weft_pkg::GEMM_WGT_FACTOR_OUT_W));
    cmp_o.wgt_factor_in  = 16'(field(insn_i, weft_pkg::GEMM_WGT_FACTOR_IN_LSB, weft_pkg::GEMM_WGT_FACTOR_IN_W));
    cmp_o.alu_op         = 3'(field(insn_i, weft_pkg::ALU_ALU_OPCODE_LSB, weft_pkg::ALU_ALU_OPCODE_W));
    cmp_o.use_imm        = field(insn_i, weft_pkg::ALU_USE_IMM_LSB, weft_pkg::ALU_USE_IMM_W) != 0;
    imm_raw          = field(insn_i, weft_pkg::ALU_IMM_LSB, weft_pkg::ALU_IMM_W);
    cmp_o.imm            = imm_raw[weft_pkg::ALU_IMM_W-1] ? (imm_raw | ~((32'd1 << weft_pkg::ALU_IMM_W) - 32'd1)) : imm_raw;
  end

  // log2 of the element bytes of a memory type, as DMA moves it.
  function automatic logic [3:0] log_elem_bytes(logic [2:0] mem_type);
    unique case (mem_type)
      3'd0: log_elem_bytes = 4'($clog2(weft_pkg::UOP_ELEM_BYTES));
      3'd1: log_elem_bytes = 4'($clog2(weft_pkg::WGT_ELEM_BYTES));
      3'd2: log_elem_bytes = 4'($clog2(weft_pkg::INP_ELEM_BYTES));
      3'd3: log_elem_bytes = 4'($clog2(weft_pkg::ACC_ELEM_BYTES));
      3'd4: log_elem_bytes = 4'($clog2(weft_pkg::OUT_ELEM_BYTES));
      3'd5: log_elem_bytes = 4'($clog2(weft_pkg::OUT_ELEM_BYTES));  // ACC_8BIT: one byte per accumulator lane
      default: log_elem_bytes = 4'd0;
    endcase
  endfunction

  assign log_elem_o = log_elem_bytes(mem_o.mem_type);
endmodule
