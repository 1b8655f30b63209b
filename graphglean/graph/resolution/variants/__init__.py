"""Rules for name variants that set a thing apart or leave it out: a ship's prefix and pennant number, a place's
qualifier that the other's description names or that the other writes into its name, an article of the
languages whose articles are also name particles."""
