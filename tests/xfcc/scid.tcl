# Scid's own XFCC client, headless: the `namespace eval Xfcc { … }` block of
# Scid's correspondence.tcl (Debian's scid-data, byte-identical to Scid
# 4.7.4), evaluated under tclsh with stubs for the few GUI names it touches.
# Used by tests/it/xfcc.rs.
#
#   tclsh8.6 scid.tcl CORRESPONDENCE_TCL WORKDIR fetch
#       reads WORKDIR/xfccrc, fetches every game (GetMyGames) into
#       WORKDIR/inbox/<server>-<id>.pgn and the state file WORKDIR/xfccstate
#   tclsh8.6 scid.tcl CORRESPONDENCE_TCL WORKDIR send NAME GAMEID MOVECOUNT MOVE COMMENT RESIGN ACCEPTDRAW OFFERDRAW CLAIMDRAW
#       sends one MakeAMove as Scid's "Send" button does
#
# Scid reports on its console; each console line is printed as
# "CONSOLE <text>", each message box as "MESSAGEBOX <args>", each HTTP
# response body as "RESPONSE <xml>".

lassign $argv source workdir command
set rest [lrange $argv 3 end]
set ::workdir $workdir

package require http
package require tdom

# Each response as Scid received it, on one line ("RESPONSE <xml>"): Scid's
# console words are not enough to tell every code apart (its `switch
# -regexp` reports InvalidMoveNumber as "Invalid move!", the pattern
# InvalidMove matching first).
rename ::http::data ::http::scid_data
proc ::http::data {token} {
    set data [::http::scid_data $token]
    puts "RESPONSE [string map [list "\n" " " "\r" " "] $data]"
    return $data
}

# The GUI names the block uses.
set ::scidVersion "4.7.4"
set ::scidVersionDate "2026"
set ::scidName "Scid"
proc tk {args} { return "x11" }
namespace eval ::splash { proc add {args} {} }
proc scidConfigFile {name} { return [file join $::workdir $name] }
proc tk_messageBox {args} { puts "MESSAGEBOX $args"; return ok }
namespace eval ::CorrespondenceChess {
    proc updateConsole {line} { puts "CONSOLE $line" }
    proc CheckHTTPS {args} { return 1 }
}

# Take the namespace block out of Scid's file: from its first line until the
# text is a complete Tcl command.
set f [open $source r]
set text [read $f]
close $f
set start [string first "namespace eval Xfcc" $text]
if {$start < 0} { puts stderr "no Xfcc block in $source"; exit 2 }
set block ""
foreach line [split [string range $text $start end] "\n"] {
    append block $line "\n"
    if {[info complete $block]} break
}
eval $block

::Xfcc::ReadConfig [file join $workdir xfccrc]
switch -- $command {
    fetch {
        file mkdir [file join $workdir inbox]
        ::Xfcc::ProcessAll [file join $workdir inbox]
    }
    send {
        ::Xfcc::Send {*}$rest
    }
    default { puts stderr "unknown command $command"; exit 2 }
}
exit 0
