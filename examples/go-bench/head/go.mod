module example.com/textops

go 1.19
