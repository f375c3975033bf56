// The GEMM core's arithmetic: acc[b][o] + sum_c inp[b][c] * wgt[o][c] for every batch row b and
// output o (BATCH x BLOCK_OUT dot products of BLOCK_IN int8 pairs), int32 wrapping. Purely
// combinational; the compute module registers around it (operand read, multiply-accumulate,
// write-back: the 4-stage pipeline of docs/microarchitecture.md).
module weft_gemm_core
(
  input  logic [weft_pkg::BATCH*weft_pkg::BLOCK_IN*8-1:0]     inp_i,
  input  logic [weft_pkg::BLOCK_OUT*weft_pkg::BLOCK_IN*8-1:0] wgt_i,
  input  logic [weft_pkg::BATCH*weft_pkg::BLOCK_OUT*32-1:0]   acc_i,
  output logic [weft_pkg::BATCH*weft_pkg::BLOCK_OUT*32-1:0]   acc_o
);
  for (genvar b = 0; b < weft_pkg::BATCH; b++) begin : g_b
    for (genvar o = 0; o < weft_pkg::BLOCK_OUT; o++) begin : g_o
      logic [31:0] sum;
      always_comb begin
        sum = acc_i[(b*weft_pkg::BLOCK_OUT+o)*32 +: 32];
        for (int unsigned c = 0; c < weft_pkg::BLOCK_IN; c++) begin
          sum = sum + 32'(signed'(inp_i[(b*weft_pkg::BLOCK_IN+c)*8 +: 8]) *
                          signed'(wgt_i[(o*weft_pkg::BLOCK_IN+c)*8 +: 8]));
        end
      end
      assign acc_o[(b*weft_pkg::BLOCK_OUT+o)*32 +: 32] = sum;
    end
  end
endmodule
