# The links of README.md and the DocC articles made to the installed documentation
# ($(PREFIX)/share/doc/diptych: README.md, guides/, examples/, screenshots/); make install-doc.
# README.md's, from the repository's root:
s|](Sources/diptych/Diptych\.docc/|](guides/|g
s|](Sources/DiptychClient/DiptychClient\.docc/|](guides/|g
s|](Assets/screenshots/|](screenshots/|g
s|](Assets/examples/|](examples/|g
s|](Assets/web/visitor-|](examples/visitor-|g
# The articles', from their catalog (both catalogs' articles are in guides/):
s|](\.\./\.\./diptych/Diptych\.docc/|](|g
s|](\.\./\.\./\.\./Assets/screenshots/|](../screenshots/|g
s|](\.\./\.\./\.\./Assets/examples/|](../examples/|g
s|<doc:\([A-Za-z]*\)>|[\1](\1.md)|g
