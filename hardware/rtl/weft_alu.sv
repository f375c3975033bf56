// The tensor ALU's arithmetic on one accumulator element (LANES int32 lanes): MIN, MAX (signed),
// ADD, MUL (wrapping), SHR (shift amount = the operand's low 5 bits read as a signed number;
// negative shifts left). Purely combinational.
module weft_alu
#(
  parameter int unsigned NLANE = weft_pkg::BATCH * weft_pkg::BLOCK_OUT
) (
  input  logic [2:0]          op_i,
  input  logic [NLANE*32-1:0] a_i,
  input  logic [NLANE*32-1:0] b_i,
  output logic [NLANE*32-1:0] y_o
);
  for (genvar i = 0; i < NLANE; i++) begin : g_lane
    logic signed [31:0] a, b, y;
    logic signed [5:0]  sh;  // widened so that -(-16) is 16
    assign a  = signed'(a_i[i*32 +: 32]);
    assign b  = signed'(b_i[i*32 +: 32]);
    assign sh = 6'(signed'(b_i[i*32 +: 5]));
    always_comb begin
      unique case (op_i)
        weft_pkg::ALU_MIN: y = (a < b) ? a : b;
        weft_pkg::ALU_MAX: y = (a > b) ? a : b;
        weft_pkg::ALU_ADD: y = a + b;
        weft_pkg::ALU_SHR: y = (sh >= 0) ? (a >>> 6'(sh)) : (a << 6'(-sh));
        weft_pkg::ALU_MUL: y = a * b;
        default: y = a;
      endcase
    end
    assign y_o[i*32 +: 32] = y;
  end
endmodule
