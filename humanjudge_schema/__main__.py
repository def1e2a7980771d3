from humanjudge_schema.commands import main

main()
