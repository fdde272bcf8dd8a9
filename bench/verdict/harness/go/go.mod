module example.com/verdictlab

go 1.19
