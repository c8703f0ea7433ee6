module fleetwatch/loadgen

go 1.19
