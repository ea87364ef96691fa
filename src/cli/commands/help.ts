import {Args, Command, Help} from '@oclif/core'

/** `loc help [COMMAND]`: oclif's help without @oclif/plugin-help (the same pages as `--help` and `-h`). */
export default class HelpCommand extends Command {
  static description = 'Show help for loc, a topic or a command (as --help or -h after it does).'
  static examples = ['<%= config.bin %> help', '<%= config.bin %> help keys create', '<%= config.bin %> help geofences sync']
  static args = {command: Args.string({description: 'a topic or command, its words as typed (keys create)'})}
  static strict = false

  async run(): Promise<void> {
    const {argv} = await this.parse(HelpCommand)
    await new Help(this.config).showHelp(argv as string[])
  }
}
