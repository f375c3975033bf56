// RTL-wide constants and instruction decoding on top of the generated configuration package
// weft_pkg (hardware/isa/generated/weft_pkg_<config>.sv): the AXI bus shape the RTL is built
// for, and the instruction fields widened to fixed sizes so that the units can do arithmetic
// without width juggling.
package weft_rtl_pkg;
  // (weft_pkg names are qualified: yosys 0.23 reads no import inside a package)

  // The AXI master: 128-bit data (16-byte beats), 64-bit addresses, 16-beat bursts. These match
  // the `sim` and `zcu104` platforms; the rtl backend rejects a platform that differs.
  localparam int unsigned BUS_BYTES = 16;
  localparam int unsigned LOG_BUS = 4;
  localparam int unsigned BUS_BITS = BUS_BYTES * 8;
  localparam int unsigned MAX_BURST = 16;
  localparam logic [63:0] BUS_LOW = 64'(BUS_BYTES) - 64'd1;  // byte-in-beat mask
  localparam logic [63:0] BUS_BYTES64 = 64'(BUS_BYTES);
  localparam int unsigned LANES = BUS_BYTES / 4;  // elements per beat at most (4-byte ones)
  localparam int unsigned IDX_W = 32;              // on-chip element indices before range checks

  // Read requester identities (ARID / RID).
  localparam logic [1:0] RID_FETCH = 2'd0;
  localparam logic [1:0] RID_LOAD = 2'd1;
  localparam logic [1:0] RID_COMPUTE = 2'd2;

  // A command in a module's queue: the instruction and its index in the program (fetch's
  // dispatch order), which errors and token pushes name.
  typedef struct packed {
    logic [31:0]  index;
    logic [127:0] insn;
  } cmd_t;
  localparam int unsigned CMD_W = 32 + 128;  // the bits of cmd_t (yosys 0.23 has no $bits of a type)

  // How a module spends a cycle (weft_unit_stats counts them; docs/microarchitecture.md
  // §Accounting): the dbg_cat_o encoding the Verilator harness reads too.
  typedef enum logic [2:0] {
    CAT_BUSY   = 3'd0,  // executing and making progress (or starting)
    CAT_TOKEN  = 3'd1,  // the head command waits for a dependency token
    CAT_DRAM   = 3'd2,  // a LOAD/STORE waits for the memory system
    CAT_NO_CMD = 3'd3,  // no command: stall_cmd_empty or idle, decided later
    CAT_HAZARD = 3'd4,  // micro-op issue held by an accumulator hazard
    CAT_DRAIN  = 3'd5   // LOAD/FINISH waits for the GEMM/ALU writes to land
  } cat_e;

  typedef struct packed {
    logic [2:0]  op;
    logic        pop_prev;
    logic        pop_next;
    logic        push_prev;
    logic        push_next;
    logic [2:0]  mem_type;
    logic [31:0] sram_base;
    logic [31:0] dram_base;
    logic [15:0] y_size;
    logic [15:0] x_size;
    logic [15:0] x_stride;
    logic [3:0]  y_pad_0;
    logic [3:0]  y_pad_1;
    logic [3:0]  x_pad_0;
    logic [3:0]  x_pad_1;
  } mem_insn_t;

  typedef struct packed {
    logic [2:0]  op;
    logic        pop_prev;
    logic        pop_next;
    logic        push_prev;
    logic        push_next;
    logic        reset_reg;
    logic [15:0] uop_bgn;
    logic [15:0] uop_end;
    logic [15:0] iter_out;
    logic [15:0] iter_in;
    logic [15:0] dst_factor_out;
    logic [15:0] dst_factor_in;
    logic [15:0] src_factor_out;
    logic [15:0] src_factor_in;
    logic [15:0] wgt_factor_out;
    logic [15:0] wgt_factor_in;
    logic [2:0]  alu_op;
    logic        use_imm;
    logic [31:0] imm;  // sign-extended
  } cmp_insn_t;

endpackage
