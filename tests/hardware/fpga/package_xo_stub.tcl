# Runs the generated package_xo.tcl under tclsh with the Vivado commands it calls replaced by
# stubs that record what they are asked, then checks the recording against kernel.xml: one
# register per argument at its offset and width, pointer arguments tied to m_axi_gmem, both
# bus interfaces on ap_clk, every RTL file present, package_xo given kernel.xml.
# Usage: tclsh package_xo_stub.tcl DIR (the folder holding package_xo.tcl and kernel.xml)
set dir [lindex $argv 0]
set errors {}
array set reg_offset {}
array set reg_size {}
array set reg_busif {}
set assoc {}
set packaged 0
set cur_reg ""
proc create_project {args} {}
proc update_compile_order {args} {}
proc current_fileset {args} { return sources_1 }
proc close_project {args} {}
proc add_files {args} {
  global errors
  foreach f [lindex $args end] { if {![file exists $f]} { lappend errors "add_files: no file $f" } }
}
proc set_property {name value obj} {
  global reg_offset reg_size cur_reg
  if {[string match reg:* $obj]} {
    set r [string range $obj 4 end]
    if {$name eq "address_offset"} { set reg_offset($r) [expr {$value}] }
    if {$name eq "size"} { set reg_size($r) $value }
  }
  if {[string match param:* $obj] && $name eq "value"} {
    global reg_busif
    set reg_busif([string range $obj 6 end]) $value
  }
}
proc package_xo {args} {
  global packaged errors
  set i [lsearch $args -kernel_xml]
  if {$i < 0 || ![file exists [lindex $args [expr {$i + 1}]]]} { lappend errors "package_xo: no kernel.xml" }
  if {[lsearch $args -kernel_name] < 0} { lappend errors "package_xo: no -kernel_name" }
  set packaged 1
}
namespace eval ipx {
  proc package_project {args} {}
  proc unload_core {args} {}
  proc edit_ip_in_project {args} {}
  proc current_core {args} { return core }
  proc infer_bus_interface {args} {}
  proc get_memory_maps {args} { return mm }
  proc get_address_blocks {args} { return blk }
  proc add_address_block {args} { return blk }
  proc add_register {name blk} { return reg:$name }
  proc add_register_parameter {name reg} {}
  proc get_register_parameters {name of reg} { return param:[string range $reg 4 end] }
  proc associate_bus_interfaces {args} { lappend ::assoc [lindex $args 1] [lindex $args 3] }
  proc create_xgui_files {args} {}
  proc update_checksums {args} {}
  proc check_integrity {args} {}
  proc save_core {args} {}
}
set argv [list xcu250-figd2104-2L-e /tmp/weft_stub.xo]
set argc 2
source [file join $dir package_xo.tcl]

set f [open [file join $dir kernel.xml]]
set xml [read $f]
close $f
set n 0
foreach {- attrs} [regexp -all -inline {<arg ([^>]*)/>} $xml] {
  regexp {name="([^"]*)"} $attrs - name
  regexp {offset="([^"]*)"} $attrs - offset
  regexp {size="([^"]*)"} $attrs - size
  regexp {addressQualifier="([^"]*)"} $attrs - aq
  incr n
  if {![info exists reg_offset($name)]} { lappend errors "no register for argument $name"; continue }
  if {$reg_offset($name) != [expr {$offset}]} { lappend errors "register $name at $reg_offset($name), kernel.xml $offset" }
  if {$reg_size($name) != [expr {$size * 8}]} { lappend errors "register $name is $reg_size($name) bits" }
  if {$aq == 1 && (![info exists reg_busif($name)] || $reg_busif($name) ne "m_axi_gmem")} {
    lappend errors "pointer argument $name is not associated with m_axi_gmem"
  }
}
if {$n == 0} { lappend errors "kernel.xml has no arguments" }
if {!$packaged} { lappend errors "package_xo was never called" }
foreach busif {m_axi_gmem s_axi_control} {
  if {[lsearch $assoc $busif] < 0} { lappend errors "$busif is not associated with ap_clk" }
}
foreach e $errors { puts "MISMATCH: $e" }
if {[llength $errors]} { exit 1 }
puts "package_xo.tcl: $n registers match kernel.xml"
