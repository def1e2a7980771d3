from humanjudge_schema.cli import main

main()
