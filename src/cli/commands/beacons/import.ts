import {importBeacons} from '../../../sync/import.js'
import {ImportCsvCommand} from '../../import-csv.js'

export default class BeaconsImport extends ImportCsvCommand {
  static description = 'Import beacons from a CSV file (the spec\'s format): rows with an existing tag and externalId update, others create. Any bad row imports nothing unless --partial.'
  static examples = [
    '<%= config.bin %> beacons import docs/examples/beacons.csv --env test',
    '<%= config.bin %> beacons import beacons.csv --env live --partial',
  ]

  // own statics: oclif's parse reads only the class's own properties
  static args = ImportCsvCommand.args
  static flags = ImportCsvCommand.flags

  protected readonly noun = 'beacons'
  protected importer = importBeacons
}
