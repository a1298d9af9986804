# A manual page from argument-parser's generator (mdoc), finished (make man-pages):
# - a line of text followed by another keeps its line break, as --help prints it (the discussions
#   are laid out by line: ctl's table of commands);
# - a .Pp followed by .It or .El is dropped (the generator's empty paragraph after an option
#   whose values it does not list);
# - with -v sections=FILE, the generated EXIT STATUS and what follows are replaced by FILE.
function flush() { if (pending != "") { print pending; pending = "" } }
/^\.Sh "EXIT STATUS"/ && sections != "" {
  flush()
  while ((getline line < sections) > 0) print line
  done = 1
  exit
}
/^\.Pp$/ { flush(); pending = $0; prevtext = 0; next }
/^\.(It|El)( |$)/ && pending == ".Pp" { pending = "" }
{
  if (pending == ".Pp") flush()
  text = $0 !~ /^[.']/
  if (text && prevtext) print ".br"
  prevtext = text
  print
}
END { if (!done) flush() }
