"""Answer shapes besides the asked format and those `RecordParser` reads line by line: markup (`markup`: XML
elements), delimited rows (`delimited`: CSV and TSV), and what is left unread (`leftovers`: kept as malformed
text unless it is chatter)."""
