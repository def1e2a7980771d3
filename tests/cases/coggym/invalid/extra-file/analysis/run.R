d <- read.csv("x")
