"""The superior side of a JT/T 809 link (exchange/README.md): shared by the regulator in a box and fleetwatch as a superior platform."""
