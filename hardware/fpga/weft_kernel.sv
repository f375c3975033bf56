// weft_kernel: the accelerator as a Vitis RTL kernel (docs/fpga.md). It exposes only the
// ports Vitis packages into bus interfaces: ap_clk, ap_rst_n, interrupt, the AXI4-Lite slave
// s_axi_control and a complete AXI4 master m_axi_gmem (IDs, lock/cache/prot/qos, responses);
// the debug ports of weft_top stay inside. Around weft_top it adds what a host using
// xrt::kernel needs, since such a host cannot read kernel registers:
//  - a 64-bit `status` argument at 0x68 (hardware/isa/registers.h kStatusAddr): when it is not
//    zero, the run's counters and error registers (the register image 0x28..0x67, 64 bytes)
//    are written there as one burst before ap_done rises;
//  - AXI read/write error responses (RRESP/BRESP != OKAY) set bit 6 of the error register
//    (kErrBusResp), in the status buffer and at 0x60;
//  - the end of a run drains the master first: every outstanding read burst returns, an open
//    write burst is completed with empty beats (WSTRB 0), every write response arrives;
//  - ap_ctrl_hs as XRT drives it: ap_start is refused until the previous run is fully done,
//    ap_done/ap_ready clear when 0x00 is read, ap_idle stays low until the status is written,
//    and `interrupt` (GIE && ISR, ISR cleared by writing 1 to 0x0C) rises only then.
// Host register accesses are forwarded to weft_top's control slave one at a time; the kernel
// itself reads weft_top's counters through the same port after a run.
module weft_kernel #(
  parameter int unsigned C_S_AXI_CONTROL_ADDR_WIDTH = 12,
  parameter int unsigned C_M_AXI_GMEM_ID_WIDTH = 2
) (
  input  logic                 ap_clk,
  input  logic                 ap_rst_n,
  output logic                 interrupt,
  // AXI4-Lite control slave
  input  logic                 s_axi_control_awvalid,
  output logic                 s_axi_control_awready,
  input  logic [C_S_AXI_CONTROL_ADDR_WIDTH-1:0] s_axi_control_awaddr,
  input  logic                 s_axi_control_wvalid,
  output logic                 s_axi_control_wready,
  input  logic [31:0]          s_axi_control_wdata,
  input  logic [3:0]           s_axi_control_wstrb,
  output logic                 s_axi_control_bvalid,
  input  logic                 s_axi_control_bready,
  output logic [1:0]           s_axi_control_bresp,
  input  logic                 s_axi_control_arvalid,
  output logic                 s_axi_control_arready,
  input  logic [C_S_AXI_CONTROL_ADDR_WIDTH-1:0] s_axi_control_araddr,
  output logic                 s_axi_control_rvalid,
  input  logic                 s_axi_control_rready,
  output logic [31:0]          s_axi_control_rdata,
  output logic [1:0]           s_axi_control_rresp,
  // AXI4 master
  output logic                 m_axi_gmem_awvalid,
  input  logic                 m_axi_gmem_awready,
  output logic [63:0]          m_axi_gmem_awaddr,
  output logic [C_M_AXI_GMEM_ID_WIDTH-1:0] m_axi_gmem_awid,
  output logic [7:0]           m_axi_gmem_awlen,
  output logic [2:0]           m_axi_gmem_awsize,
  output logic [1:0]           m_axi_gmem_awburst,
  output logic                 m_axi_gmem_awlock,
  output logic [3:0]           m_axi_gmem_awcache,
  output logic [2:0]           m_axi_gmem_awprot,
  output logic [3:0]           m_axi_gmem_awqos,
  output logic                 m_axi_gmem_wvalid,
  input  logic                 m_axi_gmem_wready,
  output logic [weft_rtl_pkg::BUS_BITS-1:0]  m_axi_gmem_wdata,
  output logic [weft_rtl_pkg::BUS_BYTES-1:0] m_axi_gmem_wstrb,
  output logic                 m_axi_gmem_wlast,
  input  logic                 m_axi_gmem_bvalid,
  output logic                 m_axi_gmem_bready,
  input  logic [1:0]           m_axi_gmem_bresp,
  input  logic [C_M_AXI_GMEM_ID_WIDTH-1:0] m_axi_gmem_bid,
  output logic                 m_axi_gmem_arvalid,
  input  logic                 m_axi_gmem_arready,
  output logic [63:0]          m_axi_gmem_araddr,
  output logic [C_M_AXI_GMEM_ID_WIDTH-1:0] m_axi_gmem_arid,
  output logic [7:0]           m_axi_gmem_arlen,
  output logic [2:0]           m_axi_gmem_arsize,
  output logic [1:0]           m_axi_gmem_arburst,
  output logic                 m_axi_gmem_arlock,
  output logic [3:0]           m_axi_gmem_arcache,
  output logic [2:0]           m_axi_gmem_arprot,
  output logic [3:0]           m_axi_gmem_arqos,
  input  logic                 m_axi_gmem_rvalid,
  output logic                 m_axi_gmem_rready,
  input  logic [weft_rtl_pkg::BUS_BITS-1:0]  m_axi_gmem_rdata,
  input  logic [C_M_AXI_GMEM_ID_WIDTH-1:0] m_axi_gmem_rid,
  input  logic                 m_axi_gmem_rlast,
  input  logic [1:0]           m_axi_gmem_rresp
);
  localparam int unsigned AW = C_S_AXI_CONTROL_ADDR_WIDTH;
  // the register image REG_CYCLES..REG_MAP_END - 1 (0x28..0x67)
  localparam int unsigned NWORDS = (32'(weft_pkg::REG_MAP_END) - 32'(weft_pkg::REG_CYCLES)) / 4;
  localparam int unsigned BEATS = NWORDS * 4 / weft_rtl_pkg::BUS_BYTES;
  localparam int unsigned WPB = weft_rtl_pkg::BUS_BYTES / 4;  // words per beat
  localparam logic [AW-1:0] A_CTRL = AW'(weft_pkg::REG_CONTROL);
  localparam logic [AW-1:0] A_ERR = AW'(weft_pkg::REG_ERROR);
  localparam logic [AW-1:0] A_STATUS_LO = AW'(weft_pkg::REG_STATUS_ADDR);
  localparam logic [AW-1:0] A_STATUS_HI = AW'(weft_pkg::REG_STATUS_ADDR) + AW'(4);
  localparam logic [31:0] ERR_BUS_RESP = 32'd1 << weft_pkg::ERR_BUS_RESP;

  // ---------------- the core ----------------
  logic        c_awvalid, c_awready, c_wvalid, c_wready, c_bvalid, c_bready;
  logic        c_arvalid, c_arready, c_rvalid, c_rready, c_irq;
  logic [7:0]  c_awaddr, c_araddr;
  logic [31:0] c_wdata, c_rdata;
  logic [1:0]  c_bresp, c_rresp;
  logic        k_arvalid, k_awvalid, k_awready, k_wvalid, k_wready, k_wlast, k_bvalid;
  logic [1:0]  k_arid;
  logic [63:0] k_awaddr;
  logic [7:0]  k_awlen;
  logic [weft_rtl_pkg::BUS_BITS-1:0]  k_wdata;
  logic [weft_rtl_pkg::BUS_BYTES-1:0] k_wstrb;
  logic [2:0]  k_awsize, k_arsize;
  logic [1:0]  k_awburst, k_arburst;
  logic        k_rready, k_bready;
  logic [2:0]  unused_start;
  logic [5:0]  unused_done;
  logic        run;
  logic [64*26-1:0] unused_stats;
  logic [8:0]  unused_cat;
  logic [3:0]  unused_tok;
  logic [1:0]  unused_fetch;

  weft_top u_core (
    .ap_clk(ap_clk), .ap_rst_n(ap_rst_n),
    .s_axi_control_awvalid(c_awvalid), .s_axi_control_awready(c_awready),
    .s_axi_control_awaddr(c_awaddr), .s_axi_control_wvalid(c_wvalid),
    .s_axi_control_wready(c_wready), .s_axi_control_wdata(c_wdata),
    .s_axi_control_wstrb(4'hF), .s_axi_control_bvalid(c_bvalid),
    .s_axi_control_bready(c_bready), .s_axi_control_bresp(c_bresp),
    .s_axi_control_arvalid(c_arvalid), .s_axi_control_arready(c_arready),
    .s_axi_control_araddr(c_araddr), .s_axi_control_rvalid(c_rvalid),
    .s_axi_control_rready(c_rready), .s_axi_control_rdata(c_rdata),
    .s_axi_control_rresp(c_rresp), .interrupt(c_irq),
    .m_axi_gmem_arvalid(k_arvalid), .m_axi_gmem_arready(m_axi_gmem_arready),
    .m_axi_gmem_araddr(m_axi_gmem_araddr), .m_axi_gmem_arlen(m_axi_gmem_arlen),
    .m_axi_gmem_arsize(k_arsize), .m_axi_gmem_arburst(k_arburst), .m_axi_gmem_arid(k_arid),
    .m_axi_gmem_rvalid(m_axi_gmem_rvalid), .m_axi_gmem_rready(k_rready),
    .m_axi_gmem_rdata(m_axi_gmem_rdata), .m_axi_gmem_rid(m_axi_gmem_rid[1:0]),
    .m_axi_gmem_rlast(m_axi_gmem_rlast), .m_axi_gmem_rresp(m_axi_gmem_rresp),
    .m_axi_gmem_awvalid(k_awvalid), .m_axi_gmem_awready(k_awready),
    .m_axi_gmem_awaddr(k_awaddr), .m_axi_gmem_awlen(k_awlen),
    .m_axi_gmem_awsize(k_awsize), .m_axi_gmem_awburst(k_awburst),
    .m_axi_gmem_wvalid(k_wvalid), .m_axi_gmem_wready(k_wready),
    .m_axi_gmem_wdata(k_wdata), .m_axi_gmem_wstrb(k_wstrb), .m_axi_gmem_wlast(k_wlast),
    .m_axi_gmem_bvalid(k_bvalid), .m_axi_gmem_bready(k_bready),
    .m_axi_gmem_bresp(m_axi_gmem_bresp),
    .dbg_start_o(unused_start), .dbg_done_o(unused_done), .dbg_run_o(run),
    .dbg_stats_o(unused_stats), .dbg_cat_o(unused_cat), .dbg_tok_o(unused_tok),
    .dbg_fetch_o(unused_fetch)
  );

  logic unused_kernel;
  assign unused_kernel = ^{unused_start, unused_done, unused_stats, unused_cat, unused_tok,
                           unused_fetch, s_axi_control_wstrb, c_bresp, c_rresp, k_rready,
                           k_bready, m_axi_gmem_bid, m_axi_gmem_rid, c_wready};

  // ---------------- the run's lifecycle ----------------
  typedef enum logic [2:0] {K_IDLE, K_RUN, K_DRAIN, K_REGS, K_AW, K_W, K_B} kstate_e;
  kstate_e     ks_q, ks_d;
  logic        done_q, done_d, berr_q, berr_d;
  logic [63:0] status_q, status_d;
  logic [31:0] img_q [NWORDS];
  logic [31:0] img_d [NWORDS];
  logic [4:0]  word_q, word_d;      // K_REGS: next register to read; K_W: next beat
  logic [15:0] rd_out_q, rd_out_d;  // read bursts accepted, last beat not yet returned
  logic [15:0] wr_out_q, wr_out_d;  // write bursts accepted, response not yet returned
  logic [15:0] w_rem_q, w_rem_d;    // write beats announced on AW, not yet sent on W

  // The core owns the master while it runs; the kernel afterwards.
  logic core_bus;
  assign core_bus = (ks_q == K_IDLE) || (ks_q == K_RUN);

  assign m_axi_gmem_arvalid = core_bus && k_arvalid;
  assign m_axi_gmem_arid    = C_M_AXI_GMEM_ID_WIDTH'(k_arid);
  assign m_axi_gmem_arsize  = k_arsize;
  assign m_axi_gmem_arburst = k_arburst;
  assign m_axi_gmem_arlock  = 1'b0;
  assign m_axi_gmem_arcache = 4'b0011;  // bufferable, modifiable
  assign m_axi_gmem_arprot  = 3'b000;
  assign m_axi_gmem_arqos   = 4'b0000;
  assign m_axi_gmem_rready  = 1'b1;
  assign m_axi_gmem_bready  = 1'b1;
  assign m_axi_gmem_awid    = '0;
  assign m_axi_gmem_awsize  = k_awsize;
  assign m_axi_gmem_awburst = k_awburst;
  assign m_axi_gmem_awlock  = 1'b0;
  assign m_axi_gmem_awcache = 4'b0011;
  assign m_axi_gmem_awprot  = 3'b000;
  assign m_axi_gmem_awqos   = 4'b0000;
  assign k_bvalid = m_axi_gmem_bvalid;

  always_comb begin
    m_axi_gmem_awvalid = 1'b0;
    m_axi_gmem_awaddr  = k_awaddr;
    m_axi_gmem_awlen   = k_awlen;
    m_axi_gmem_wvalid  = 1'b0;
    m_axi_gmem_wdata   = k_wdata;
    m_axi_gmem_wstrb   = k_wstrb;
    m_axi_gmem_wlast   = k_wlast;
    k_awready = 1'b0;
    k_wready  = 1'b0;
    if (core_bus) begin
      m_axi_gmem_awvalid = k_awvalid;
      m_axi_gmem_wvalid  = k_wvalid;
      k_awready = m_axi_gmem_awready;
      k_wready  = m_axi_gmem_wready;
    end else if (ks_q == K_DRAIN) begin
      // complete a burst the core left open (a run ended by an error) with empty beats
      m_axi_gmem_wvalid = (w_rem_q != 0);
      m_axi_gmem_wstrb  = '0;
      m_axi_gmem_wlast  = (w_rem_q == 16'd1);
    end else if (ks_q == K_AW) begin
      m_axi_gmem_awvalid = 1'b1;
      m_axi_gmem_awaddr  = status_q;
      m_axi_gmem_awlen   = 8'(BEATS - 1);
    end else if (ks_q == K_W) begin
      m_axi_gmem_wvalid = 1'b1;
      m_axi_gmem_wstrb  = '1;
      m_axi_gmem_wlast  = (32'(word_q) == BEATS - 1);
      for (int unsigned i = 0; i < WPB; i++) begin
        m_axi_gmem_wdata[32*i +: 32] = img_q[(32'(word_q) * WPB + i) % NWORDS];
      end
    end
  end

  logic ar_hs, r_last_hs, aw_hs, w_hs, b_hs;
  assign ar_hs     = m_axi_gmem_arvalid && m_axi_gmem_arready;
  assign r_last_hs = m_axi_gmem_rvalid && m_axi_gmem_rlast;
  assign aw_hs     = m_axi_gmem_awvalid && m_axi_gmem_awready;
  assign w_hs      = m_axi_gmem_wvalid && m_axi_gmem_wready;
  assign b_hs      = m_axi_gmem_bvalid;

  // ---------------- register access: host forwarding and the kernel's own reads ----------
  typedef enum logic [2:0] {H_IDLE, H_AR, H_R, H_AW, H_B, H_RESP_R, H_RESP_B} hstate_e;
  hstate_e     hs_q, hs_d;
  logic        own_q, own_d;            // the access in flight is the kernel's (K_REGS)
  logic [7:0]  haddr_q, haddr_d;
  logic [31:0] hdata_q, hdata_d;
  logic        start_req;               // a host write of ap_start, accepted now

  logic host_wr, host_rd, own_rd, local_wr, local_rd;
  assign host_wr = (hs_q == H_IDLE) && (ks_q != K_REGS) && s_axi_control_awvalid &&
                   s_axi_control_wvalid;
  assign host_rd = (hs_q == H_IDLE) && (ks_q != K_REGS) && !host_wr && s_axi_control_arvalid;
  assign own_rd  = (hs_q == H_IDLE) && (ks_q == K_REGS) && (32'(word_q) < NWORDS);
  assign local_wr = (s_axi_control_awaddr == A_STATUS_LO) ||
                    (s_axi_control_awaddr == A_STATUS_HI) || (s_axi_control_awaddr[AW-1:8] != 0);
  assign local_rd = (s_axi_control_araddr == A_STATUS_LO) ||
                    (s_axi_control_araddr == A_STATUS_HI) || (s_axi_control_araddr[AW-1:8] != 0);
  assign s_axi_control_awready = host_wr;
  assign s_axi_control_wready  = host_wr;
  assign s_axi_control_arready = host_rd;
  assign s_axi_control_bvalid  = (hs_q == H_RESP_B);
  assign s_axi_control_bresp   = 2'b00;
  assign s_axi_control_rvalid  = (hs_q == H_RESP_R);
  assign s_axi_control_rresp   = 2'b00;
  assign s_axi_control_rdata   = hdata_q;
  assign start_req = host_wr && (s_axi_control_awaddr == A_CTRL) && s_axi_control_wdata[0];

  assign c_arvalid = (hs_q == H_AR);
  assign c_araddr  = haddr_q;
  assign c_rready  = (hs_q == H_R);
  assign c_awvalid = (hs_q == H_AW);
  assign c_wvalid  = (hs_q == H_AW);
  assign c_awaddr  = haddr_q;
  assign c_wdata   = hdata_q;
  assign c_bready  = (hs_q == H_B);

  // What the host reads: the core's register, with the kernel's ap_done/ap_idle/ap_ready at
  // 0x00 and its bus-error bit at 0x60.
  function automatic logic [31:0] shown(logic [7:0] a, logic [31:0] v, logic done,
                                        logic busy, logic berr);
    shown = v;
    if (AW'(a) == A_CTRL) begin
      shown[0] = v[0] || busy;
      shown[1] = done;
      shown[2] = v[2] && !busy;
      shown[3] = done;
    end
    if (AW'(a) == A_ERR && berr) shown = v | ERR_BUS_RESP;
  endfunction

  always_comb begin
    hs_d = hs_q; own_d = own_q; haddr_d = haddr_q; hdata_d = hdata_q;
    ks_d = ks_q; done_d = done_q; berr_d = berr_q; status_d = status_q; word_d = word_q;
    for (int unsigned i = 0; i < NWORDS; i++) img_d[i] = img_q[i];
    rd_out_d = rd_out_q + 16'(ar_hs) - 16'(r_last_hs);
    wr_out_d = wr_out_q + 16'(aw_hs) - 16'(b_hs);
    w_rem_d  = w_rem_q + (aw_hs ? 16'(m_axi_gmem_awlen) + 16'd1 : 16'd0) - 16'(w_hs);
    if (m_axi_gmem_rvalid && m_axi_gmem_rresp != 2'b00) berr_d = 1'b1;
    if (m_axi_gmem_bvalid && m_axi_gmem_bresp != 2'b00) berr_d = 1'b1;

    // register accesses
    unique case (hs_q)
      H_IDLE: begin
        if (host_wr) begin
          own_d = 1'b0;
          haddr_d = s_axi_control_awaddr[7:0];
          hdata_d = s_axi_control_wdata;
          if (local_wr) begin
            if (ks_q == K_IDLE && !run && s_axi_control_awaddr == A_STATUS_LO)
              status_d[31:0] = s_axi_control_wdata;
            if (ks_q == K_IDLE && !run && s_axi_control_awaddr == A_STATUS_HI)
              status_d[63:32] = s_axi_control_wdata;
            hs_d = H_RESP_B;
          end else if (s_axi_control_awaddr == A_CTRL && (ks_q != K_IDLE || run)) begin
            hs_d = H_RESP_B;  // ap_start while a run (or its status write) is in progress
          end else begin
            hs_d = H_AW;
          end
          if (start_req && ks_q == K_IDLE && !run) begin
            done_d = 1'b0;
            berr_d = 1'b0;
          end
        end else if (host_rd) begin
          own_d = 1'b0;
          haddr_d = s_axi_control_araddr[7:0];
          if (local_rd) begin
            hdata_d = (s_axi_control_araddr == A_STATUS_LO) ? status_q[31:0] :
                      (s_axi_control_araddr == A_STATUS_HI) ? status_q[63:32] : 32'd0;
            hs_d = H_RESP_R;
          end else begin
            hs_d = H_AR;
          end
        end else if (own_rd) begin
          own_d = 1'b1;
          haddr_d = weft_pkg::REG_CYCLES + {2'b00, word_q[3:0], 2'b00};  // the register image
          hs_d = H_AR;
        end
      end
      H_AR: if (c_arready) hs_d = H_R;
      H_R: begin
        if (c_rvalid) begin
          if (own_q) begin
            img_d[word_q[3:0]] = (AW'(haddr_q) == A_ERR && berr_q) ? c_rdata | ERR_BUS_RESP : c_rdata;
            word_d = word_q + 5'd1;
            hs_d = H_IDLE;
          end else begin
            hdata_d = shown(haddr_q, c_rdata, done_q, ks_q != K_IDLE, berr_q);
            if (AW'(haddr_q) == A_CTRL) done_d = 1'b0;  // ap_done and ap_ready clear on read
            hs_d = H_RESP_R;
          end
        end
      end
      H_AW: if (c_awready) hs_d = H_B;
      H_B: if (c_bvalid) hs_d = H_RESP_B;
      H_RESP_R: if (s_axi_control_rready) hs_d = H_IDLE;
      H_RESP_B: if (s_axi_control_bready) hs_d = H_IDLE;
      default: hs_d = H_IDLE;
    endcase

    // the run
    unique case (ks_q)
      K_IDLE: if (run) ks_d = K_RUN;
      K_RUN: if (!run) ks_d = K_DRAIN;
      K_DRAIN: begin
        if (rd_out_q == 0 && wr_out_q == 0 && w_rem_q == 0 && !aw_hs && !ar_hs) begin
          word_d = '0;
          if (status_q != 0) begin
            ks_d = K_REGS;
          end else begin
            ks_d = K_IDLE;
            done_d = 1'b1;
          end
        end
      end
      K_REGS: begin
        if (32'(word_q) == NWORDS && hs_q == H_IDLE) begin
          ks_d = K_AW;
          word_d = '0;
        end
      end
      K_AW: if (m_axi_gmem_awready) ks_d = K_W;
      K_W: begin
        if (m_axi_gmem_wready) begin
          word_d = word_q + 5'd1;
          if (32'(word_q) == BEATS - 1) ks_d = K_B;
        end
      end
      K_B: begin
        if (m_axi_gmem_bvalid) begin
          ks_d = K_IDLE;
          done_d = 1'b1;
        end
      end
      default: ks_d = K_IDLE;
    endcase
  end

  always_ff @(posedge ap_clk or negedge ap_rst_n) begin
    if (!ap_rst_n) begin
      hs_q <= H_IDLE; own_q <= 1'b0; haddr_q <= '0; hdata_q <= '0;
      ks_q <= K_IDLE; done_q <= 1'b0; berr_q <= 1'b0; status_q <= '0; word_q <= '0;
      rd_out_q <= '0; wr_out_q <= '0; w_rem_q <= '0;
    end else begin
      hs_q <= hs_d; own_q <= own_d; haddr_q <= haddr_d; hdata_q <= hdata_d;
      ks_q <= ks_d; done_q <= done_d; berr_q <= berr_d; status_q <= status_d; word_q <= word_d;
      rd_out_q <= rd_out_d; wr_out_q <= wr_out_d; w_rem_q <= w_rem_d;
    end
  end

  // The register image (payload, no reset): read into it word by word in K_REGS before the
  // K_AW/K_W burst sends it.
  always_ff @(posedge ap_clk) begin
    for (int unsigned i = 0; i < NWORDS; i++) img_q[i] <= img_d[i];
  end

  // The interrupt rises once the status is in memory.
  assign interrupt = c_irq && (ks_q == K_IDLE) && !run;
endmodule
