"""What a node's descriptions say of its names: two things keyed into one node (`namesakes`), and the other
names of one thing (`aliases`)."""
