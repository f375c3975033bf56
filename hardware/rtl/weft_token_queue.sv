// One dependency-token queue (DESIGN.md §3): a counter. Pushes made in cycle t are visible in
// t + 1; a pop happens in the cycle an instruction starts. A push that would take the queue
// beyond DEPTH raises overflow_o in the cycle the push becomes visible, as the cycle model
// reports it, and is never dropped silently.
module weft_token_queue #(
  parameter int unsigned DEPTH = 16
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       clear_i,
  input  logic [3:0] push_n_i,  // tokens pushed this cycle
  input  logic       pop_i,
  output logic       avail_o,   // at least one visible token
  output logic       overflow_o,
  output logic [$clog2(DEPTH+1):0] count_o
);
  localparam int unsigned CW = $clog2(DEPTH + 1) + 1;  // one spare bit to see an overflow

  logic [CW-1:0] cnt_q, cnt_d;

  always_comb begin
    cnt_d = cnt_q;
    if (clear_i) cnt_d = '0;
    else cnt_d = cnt_q + CW'(push_n_i) - CW'(pop_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else cnt_q <= cnt_d;
  end

  assign avail_o    = (cnt_q != '0);
  assign overflow_o = (32'(cnt_q) > DEPTH);
  assign count_o    = cnt_q;
endmodule
