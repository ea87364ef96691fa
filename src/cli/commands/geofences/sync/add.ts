import {Flags} from '@oclif/core'
import {syncSourceSchema} from '../../../../sync/input.js'
import {addSyncSource, displayUrl} from '../../../../sync/sources.js'
import {parse} from '../../../../validate.js'
import {BaseCommand} from '../../../base.js'

export default class SyncAdd extends BaseCommand<typeof SyncAdd> {
  static description = 'Add a geofence CSV source that `loc serve` syncs on a schedule (default nightly). Credentials are never given here: --credentials names a profile under sync.credentials in the config file, and S3 sources without one use the AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE).'
  static examples = [
    '<%= config.bin %> geofences sync add --url https://example.com/stores.csv --env live',
    '<%= config.bin %> geofences sync add --s3 s3://my-bucket/geofences.csv --region eu-west-1 --env live --schedule "0 */6 * * *" --prune',
    '<%= config.bin %> geofences sync add --s3 s3://geo/stores.csv --endpoint https://minio.internal:9000 --credentials minio --env test',
  ]

  static flags = {
    url: Flags.string({description: 'http(s) URL of the CSV', exclusive: ['s3']}),
    s3: Flags.string({description: 'object in an S3 bucket: s3://bucket/key', exclusive: ['url']}),
    region: Flags.string({description: 'S3 region (default AWS_REGION, else us-east-1)'}),
    endpoint: Flags.string({description: 'S3-compatible endpoint URL (MinIO, R2, …); path-style addressing'}),
    credentials: Flags.string({description: 'name of a credentials profile under sync.credentials in the config file'}),
    env: Flags.string({description: 'environment the geofences are synced into', options: ['test', 'live'], required: true}),
    schedule: Flags.string({description: 'cron expression (default sync.schedule: "0 3 * * *", nightly)'}),
    prune: Flags.boolean({description: "delete this source's geofences that are absent from the new file (default: keep them)"}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const config = this.loadConfig()
    const system = await this.system(config)
    const input = parse(syncSourceSchema, {url: flags.url, s3: flags.s3, region: flags.region, endpoint: flags.endpoint, credentials: flags.credentials, schedule: flags.schedule, prune: flags.prune})
    const source = addSyncSource(system.store, config, flags.env === 'live', input)
    this.log(source.id)
    // the config is read once per process: a profile added to the file while serving is not seen there
    if (source.credentials) this.logToStderr(`a running \`loc serve\` reads sync.credentials when it starts: restart it if profile "${source.credentials}" is new or changed`)
    this.logToStderr(`added ${flags.env} sync of ${displayUrl(source.url)} on "${source.schedule}"${source.prune ? ' with prune' : ''}; \`loc serve\` runs it, \`loc geofences sync run ${source.id}\` runs it now`)
  }
}
