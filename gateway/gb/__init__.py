"""The GB/T 32960 (new-energy, port 7617) and GB 17691 / HJ 1239 (emissions, port 7618) terminal gateway:
`python -m gateway.gb`, started by `fleet up`. Rules in gateway/README.md ("GB gateway")."""
