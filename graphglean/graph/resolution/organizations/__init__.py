"""Organizations' names in entity resolution: how they are written (`written`: web domains, club abbreviations,
legal forms) and what the rules conclude of two of them (`rules`; `abbreviations`: names written in letters;
`translated`: one name in two languages, word for word)."""
