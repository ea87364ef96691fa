import {importGeofences} from '../../../sync/import.js'
import {ImportCsvCommand} from '../../import-csv.js'

export default class GeofencesImport extends ImportCsvCommand {
  static description = 'Import geofences from a CSV file (the spec\'s format): rows with an existing tag and externalId update, others create. Any bad row imports nothing unless --partial; every bad row is listed with its column.'
  static examples = [
    '<%= config.bin %> geofences import docs/examples/geofences.csv --env test',
    '<%= config.bin %> geofences import stores.csv --env live --dry-run',
    '<%= config.bin %> geofences import stores.csv --env live --partial',
  ]

  // own statics: oclif's parse reads only the class's own properties
  static args = ImportCsvCommand.args
  static flags = ImportCsvCommand.flags

  protected readonly noun = 'geofences'
  protected importer = importGeofences
}
