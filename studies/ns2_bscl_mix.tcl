# 004 §VII's mix in ns-2.35 (driven by studies/ns2_bscl_mix.py, which writes FLOWS).
#
# Usage: ns ns2_bscl_mix.tcl FLOWS BUFFER DURATION WARMUP DROPS [SINK]
#
# FLOWS has one line per flow: "group rtt_s start_s access_bps window_packets" (a flow of
# group "short" sends 14 packets from start_s, the others are persistent). Each flow has
# its own source node behind a duplex access link of its rate with rtt_s / 2 of delay each way
# (bufsize's dumbbell), then the 50 Mb/s DropTail target link of BUFFER packets; every other
# queue is large enough never to drop. Senders Agent/TCP/Sack1 with packetSize_ 1500 and
# window_ from FLOWS, receivers Agent/TCPSink/Sack1/DelAck (ns-2's defaults otherwise:
# interval_ 100 ms, minrto_ 0.2 s, tcpTick_ 10 ms, windowInit_ 2). Prints the target link's
# arrivals and drops after WARMUP, per flow and in total, and each flow's timeouts after
# WARMUP; writes the drops at the target link (ns-2 trace lines "d ...") to DROPS.
set flowsfile [lindex $argv 0]
set B [lindex $argv 1]
set duration [lindex $argv 2]
set warmup [lindex $argv 3]
set dropsout [lindex $argv 4]
# the receivers' class: ns-2's delayed-ACK SACK sink unless told otherwise (a diagnosis)
set sinkclass [expr {[llength $argv] > 5 ? [lindex $argv 5] : "Agent/TCPSink/Sack1/DelAck"}]
set ns [new Simulator]
Agent/TCP set packetSize_ 1500
set r1 [$ns node]
set r2 [$ns node]
set dst [$ns node]
$ns simplex-link $r1 $r2 50Mb 0.0000001 DropTail
$ns simplex-link $r2 $r1 50Mb 0.0000001 DropTail
$ns queue-limit $r1 $r2 $B
$ns queue-limit $r2 $r1 100000
$ns duplex-link $r2 $dst 10Gb 0.0000001 DropTail
$ns queue-limit $r2 $dst 100000
$ns queue-limit $dst $r2 100000
set f [open $flowsfile r]
set agents {}
set i 0
while {[gets $f line] >= 0} {
    lassign $line group rtt start access window
    set s [$ns node]
    $ns duplex-link $s $r1 $access [expr {$rtt / 2.0}] DropTail
    $ns queue-limit $s $r1 100000
    $ns queue-limit $r1 $s 100000
    set tcp [new Agent/TCP/Sack1]
    $tcp set window_ $window
    $tcp set fid_ $i
    set sink [new $sinkclass]
    $ns attach-agent $s $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    if {$group eq "short"} {
        # a short flow: 14 packets from its arrival time (window_ holds the 10,000 limit)
        $ns at $start "$ftp produce 14"
    } else {
        $ns at $start "$ftp start"
    }
    lappend agents $tcp
    incr i
}
close $f
set qm [$ns monitor-queue $r1 $r2 ""]
set fmon [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $r1 $r2] $fmon
set tf [open "|grep ^d > $dropsout" w]
$ns trace-queue $r1 $r2 $tf
array set timeouts_at_warmup {}
proc warm {} {
    global qm fmon agents timeouts_at_warmup
    $qm reset
    $fmon reset
    foreach fl [$fmon flows] { $fl reset }
    set k 0
    foreach a $agents { set timeouts_at_warmup($k) [$a set nrexmit_]; incr k }
}
proc finish {} {
    global qm fmon ns tf agents timeouts_at_warmup
    puts "total [$qm set parrivals_] [$qm set pdrops_] [$qm set bdepartures_]"
    foreach fl [$fmon flows] {
        puts "flow [$fl set flowid_] [$fl set parrivals_] [$fl set pdrops_] [$fl set bdepartures_]"
    }
    set k 0
    foreach a $agents {
        puts "timeouts $k [expr {[$a set nrexmit_] - $timeouts_at_warmup($k)}]"
        incr k
    }
    $ns flush-trace
    close $tf
    exit 0
}
$ns at $warmup "warm"
$ns at $duration "finish"
$ns run
