// The end of the next burst of a transfer whose next byte is `pos_i` and whose last byte is
// before `end_i`: bus-aligned beats, at most MAX_BURST of them, never crossing 4 KiB
// (docs/microarchitecture.md §Memory).
module weft_burst (
  input  logic [63:0] pos_i,
  input  logic [63:0] end_i,
  output logic [63:0] aligned_o,  // address of the first beat
  output logic [63:0] limit_o,    // the byte after the burst's last byte
  output logic [7:0]  len_o       // AXI length: beats - 1
);
  logic [63:0] lim, page, beats;
  always_comb begin
    aligned_o = pos_i & ~weft_rtl_pkg::BUS_LOW;
    lim       = aligned_o + 64'(weft_rtl_pkg::BUS_BYTES * weft_rtl_pkg::MAX_BURST);
    page      = (aligned_o | 64'hFFF) + 64'd1;
    if (page < lim) lim = page;
    if (end_i < lim) lim = end_i;
    limit_o = lim;
    beats   = (lim - aligned_o + weft_rtl_pkg::BUS_LOW) >> weft_rtl_pkg::LOG_BUS;
    len_o   = 8'(beats - 64'd1);
  end

  logic unused_burst;
  assign unused_burst = ^{beats[63:8]};
endmodule
